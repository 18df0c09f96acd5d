"""Writers, one per output format: CSV, Markdown, PNG charts, HTML charts and the index page."""
