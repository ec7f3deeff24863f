"""Turnover arithmetic."""

from __future__ import annotations


def days_of_stock(stock: int, sold: int, days: int) -> float | None:
    """How many days the stock lasts at the recent sales rate; None when it cannot be said.

    The incident inventory-zero-stock crashed here with ZeroDivisionError (sold / stock with
    stock 0); an empty shelf or no sales now gives None instead.
    """
    if stock <= 0 or sold <= 0:
        return None
    return round(stock / (sold / days), 1)
