"""Document tools: read PDF/Office/HTML/CSV/text as markdown, render markdown reports to HTML, PDF and DOCX.

The LangChain tools live in `tools.document.extract` and `tools.document.generate_report`; importing either
registers it in the catalog. The other modules are plain functions those tools (and tests) build on.
"""
