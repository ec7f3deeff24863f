"""The team's agent (LangChain tools, LangGraph's prebuilt ReAct graph) and the entrypoint
corpus-tool replays (examples/langchain_corpus/corpus.yaml).

`build` is the agent as production runs it, with a chat model such as `ChatOpenAI`; `run`
is the few lines a team adds: the same graph built on the adapter's model and tools.
"""

from __future__ import annotations

from typing import Annotated, Any

from langchain_core.language_models import BaseChatModel
from langchain_core.tools import BaseTool, tool
from langgraph.prebuilt import ToolNode, create_react_agent
from pydantic import AfterValidator

from corpus_tool import Runtime
from corpus_tool.adapters.langchain import ReplayChatModel, replay_tools
from examples import shop

PROMPT = (
    "You are the refund desk. Look the order up, refund delivered orders in full "
    "(amounts are in cents), and tell the customer the refund id."
)
MODEL = "gpt-4.1-mini"
OrderId = Annotated[str, AfterValidator(str.strip)]
"""Order ids as the tools read them: pasted ids lose stray spaces."""


@tool
def get_order(order_id: OrderId) -> dict[str, Any]:
    """Look an order up by id."""
    return shop.get_order(order_id)


@tool
def create_refund(order_id: OrderId, amount_cents: int) -> dict[str, Any]:
    """Refund an order; the amount is in cents."""
    return shop.create_refund(order_id, amount_cents)


TOOLS: list[BaseTool] = [get_order, create_refund]


def build(model: BaseChatModel, tools: list[BaseTool]) -> Any:
    """The ReAct graph; a failing tool is shown to the model, which may try again."""
    node = ToolNode(tools, handle_tool_errors=True)
    return create_react_agent(model, node, prompt=PROMPT, name="refund-desk")


def run(case_input: dict[str, Any], rt: Runtime) -> dict[str, Any]:
    """corpus-tool's entrypoint: the same graph, its model and tools answered through `rt`."""
    graph = build(ReplayChatModel(rt=rt, model=MODEL), replay_tools(TOOLS, rt))
    state = graph.invoke({"messages": [("user", case_input["user_message"])]})
    return {"status": "succeeded", "output": state["messages"][-1].content}
