"""Tool definitions offered to the model, and the production tool clients."""
