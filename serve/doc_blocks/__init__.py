"""The documentation the server serves, made once from the declarations: the analytics and metrics
documentation blocks (`/analytics/_doc`, `/metrics/_doc`) and `/llms.txt`."""
