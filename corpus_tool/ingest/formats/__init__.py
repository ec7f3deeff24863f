"""The incident formats: one module per format, each exposing an importer (`Importer`).

A format module reads its files into facts and builds events with the shared helpers of
`corpus_tool.ingest` (`build`, `body`, `chat`, `values`, and `otel` for span-based formats);
formats never import one another.
"""
