"""Ledger: working memory and injection ledger models (built by a later issue)."""
