"""The team's agent (an OpenAI Agents SDK `Agent`) and the entrypoint corpus-tool replays.

Everything above `run` is the agent as it runs in production; `run` is the few lines a team
adds so that `corpus check` replays it (examples/openai_agents_corpus/corpus.yaml).
"""

from __future__ import annotations

from typing import Annotated, Any

from agents import Agent, RunContextWrapper, Runner, function_tool
from pydantic import AfterValidator

from corpus_tool import Runtime
from corpus_tool.adapters.openai_agents import replayable, run_config
from examples import shop

INSTRUCTIONS = (
    "You are the refund desk. Look the order up, refund delivered orders in full "
    "(amounts are in cents), and tell the customer the refund id."
)
OrderId = Annotated[str, AfterValidator(str.strip)]
"""Order ids as the tools read them: pasted ids lose stray spaces."""


def show_failure(ctx: RunContextWrapper[Any], error: Exception) -> str:
    """What the model is told when a tool fails: the error's type and message."""
    return f"Tool failed: {type(error).__name__}: {error}"


@function_tool(failure_error_function=show_failure)
def get_order(order_id: OrderId) -> dict[str, Any]:
    """Look an order up by id."""
    return shop.get_order(order_id)


@function_tool(failure_error_function=show_failure)
def create_refund(order_id: OrderId, amount_cents: int) -> dict[str, Any]:
    """Refund an order; the amount is in cents."""
    return shop.create_refund(order_id, amount_cents)


refund_desk = Agent(
    name="refund-desk",
    instructions=INSTRUCTIONS,
    model="gpt-4.1-mini",
    tools=[get_order, create_refund],
)


def run(case_input: dict[str, Any], rt: Runtime) -> dict[str, Any]:
    """corpus-tool's entrypoint: the same agent, its model and tools answered through `rt`."""
    result = Runner.run_sync(
        replayable(refund_desk, rt), case_input["user_message"], run_config=run_config(rt)
    )
    return {"status": "succeeded", "output": result.final_output}
