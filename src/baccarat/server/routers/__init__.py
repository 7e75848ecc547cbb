"""The API's routers, one per resource (``APIRouter``), included by :func:`baccarat.server.app.create_app`."""
