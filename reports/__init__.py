"""Renderers of exploration results: rich console, JSON, Markdown/HTML trace reports, graph export."""
