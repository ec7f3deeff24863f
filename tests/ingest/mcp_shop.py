"""A small MCP server (the real `mcp` SDK over stdio) whose tool calls a test logs.

Run as a script: `python mcp_shop.py`. `get_order` returns an object (structured output);
`refund` fails for amounts over the order total (a ToolError: the SDK sends `isError: true`
with its message).
"""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

ORDERS = {"A100": {"order_id": "A100", "total": 19900, "status": "delivered"}}
server = MCPServer("shop")


@server.tool()
def get_order(order_id: str) -> dict[str, object]:
    """Look an order up."""
    return ORDERS[order_id]


@server.tool()
def refund(order_id: str, amount: int) -> str:
    """Refund part of an order, in cents."""
    if amount > int(str(ORDERS[order_id]["total"])):
        raise ToolError(f"amount {amount} exceeds the order total")
    return f"refunded {amount} on {order_id}"


if __name__ == "__main__":
    server.run("stdio")
