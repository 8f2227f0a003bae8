// Generated services and mocks name Courier's types (`APIClient`, `RequestOptions`, `Response`),
// so a file that imports CourierMacros sees them without importing Courier itself.
@_exported import Courier
