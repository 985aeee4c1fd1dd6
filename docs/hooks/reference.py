"""MkDocs hook: the reference tables are written from the code's declarations at every build
(rmqcheck/reference.py), so the site cannot drift from the code."""
from __future__ import annotations


def on_page_markdown(markdown, page, config, files):
    from rmqcheck.reference import expand
    return expand(markdown)
