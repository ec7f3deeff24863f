"""The inventory desk: stock look-ups and turnover."""
