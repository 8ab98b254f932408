"""Episodic memory models (built by a later issue)."""
