"""An example agent for the corpus in examples/corpus: a refund desk and an inventory desk."""
