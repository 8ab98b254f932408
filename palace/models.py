"""Memory palace models (built by a later issue)."""
