"""The team's agent (a pydantic-ai `Agent`) and the entrypoint corpus-tool replays
(examples/pydantic_ai_corpus/corpus.yaml).

Everything above `run` is the agent as it runs in production; `run` is the one line a team
adds: the `Replay` capability answers the model and the tools through `rt`.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator
from pydantic_ai import Agent, ModelRetry

from corpus_tool import Runtime
from corpus_tool.adapters.pydantic_ai import Replay
from examples import shop

OrderId = Annotated[str, AfterValidator(str.strip)]
"""Order ids as the tools read them: pasted ids lose stray spaces."""

refund_desk = Agent(
    "openai:gpt-4.1-mini",
    name="refund-desk",
    instructions=(
        "You are the refund desk. Look the order up, refund delivered orders in full "
        "(amounts are in cents), and tell the customer the refund id."
    ),
    defer_model_check=True,  # the provider (and its API key) is needed only when it is called
)


@refund_desk.tool_plain
def get_order(order_id: OrderId) -> dict[str, Any]:
    """Look an order up by id."""
    return shop.get_order(order_id)


@refund_desk.tool_plain
def create_refund(order_id: OrderId, amount_cents: int) -> dict[str, Any]:
    """Refund an order; the amount is in cents."""
    try:
        return shop.create_refund(order_id, amount_cents)
    except TimeoutError as err:  # the gateway's hiccups are worth another try
        raise ModelRetry(f"the payments gateway timed out ({err}); try again") from err


def run(case_input: dict[str, Any], rt: Runtime) -> dict[str, Any]:
    """corpus-tool's entrypoint: the same agent, its model and tools answered through `rt`."""
    result = refund_desk.run_sync(case_input["user_message"], capabilities=[Replay(rt)])
    return {"status": "succeeded", "output": result.output}
