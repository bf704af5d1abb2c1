"""The command line and, later, the HTTP server of factforge."""
