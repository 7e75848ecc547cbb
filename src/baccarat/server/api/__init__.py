"""The HTTP edge: the FastAPI app, routers per resource, request and response schemas, the one
mapping of errors to refusals (a stable code, its parameters and English words), and the browser
page."""
