// Placeholder until SigningMiddleware lands (issue 3).
import Courier
