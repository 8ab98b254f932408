"""Reads of the episodic app, one module per noun. Every query is filtered by owner (and, for what an
agent reads, by what that agent may see). A read that counts an access goes through the services."""
