import CourierMacrosImplementation
import SwiftSyntaxMacros

/// Every macro of module CourierMacros, by attribute name, as the compiler would see them.
let courierMacros: [String: any Macro.Type] = [
    "Service": ServiceMacro.self,
    "Mockable": MockableMacro.self,
    "GET": EndpointAttributeMacro.self,
    "POST": EndpointAttributeMacro.self,
    "PUT": EndpointAttributeMacro.self,
    "PATCH": EndpointAttributeMacro.self,
    "DELETE": EndpointAttributeMacro.self,
    "HEAD": EndpointAttributeMacro.self,
    "HTTP": EndpointAttributeMacro.self,
    "QueryParams": EndpointAttributeMacro.self,
    "Headers": EndpointAttributeMacro.self,
    "Header": EndpointAttributeMacro.self,
    "Body": EndpointAttributeMacro.self,
    "FormURLEncoded": EndpointAttributeMacro.self,
    "FileUpload": EndpointAttributeMacro.self,
    "Options": EndpointAttributeMacro.self,
]
