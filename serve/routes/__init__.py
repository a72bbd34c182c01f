"""Route handlers, one module per resource group; `ROUTES` is what the app mounts."""
