"""The prompts a researcher starts from, each a short brief naming the tools to call and their
arguments (tools of `serve.model_context.tools`, so a prompt asks for nothing the routes do not answer).

A key lists a prompt only when it may call every tool the prompt names; an argument a caller gives is
written into the text as JSON (quoted and escaped), never as instructions of its own.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import mcp_types as types

from serve.model_context.tools import route_tools


@dataclass(frozen=True)
class Step:
    tool: str
    arguments: Mapping[str, str]  # argument name -> the prompt argument it takes its value from
    why: str


@dataclass(frozen=True)
class ResearchPrompt:
    name: str
    title: str
    description: str
    arguments: tuple[tuple[str, str], ...]  # (name, description); all required
    steps: tuple[Step, ...]
    brief: str  # what to do with the answers

    @property
    def tools(self) -> frozenset[str]:
        return frozenset(step.tool for step in self.steps)

    def declaration(self) -> types.Prompt:
        return types.Prompt(
            name=self.name,
            title=self.title,
            description=self.description,
            arguments=[types.PromptArgument(name=n, description=d, required=True) for n, d in self.arguments],
        )

    def text(self, given: Mapping[str, str]) -> str:
        lines = [self.description, "", "Call these tools of the alpha-results server, in order:"]
        for number, step in enumerate(self.steps, 1):
            arguments = {name: given[source] for name, source in step.arguments.items()}
            lines.append(f"{number}. `{step.tool}` with {json.dumps(arguments)}: {step.why}")
        lines += ["", self.brief]
        return "\n".join(lines)


ALPHA = ("alpha", "The alpha_id (as `catalog.alphas.list` lists them).")

DECISION_TOOLS: tuple[tuple[str, str], ...] = (
    ("analytics.checks", "every check of the policy with its threshold, the alpha's value and pass or fail."),
    ("performance.metrics", "the headline figures the checks read."),
    ("analytics.risk", "tail risk and drawdowns against SPY."),
    ("analytics.live", "the part after the split against the backtest, and its decay ratio."),
    ("analytics.costs", "the information ratio before and after costs, and the break-even cost."),
    ("analytics.capacity", "the capital the book carries before its costs eat the return."),
    ("analytics.attribution", "where the P&L came from: names, legs, sectors, fragility, concentration."),
    ("analytics.promotion_preview", "what the next decision would record and change, before it is recorded."),
)
"""The decision tools: (tool, what it tells the reviewer) for each answer a promote or retire
decision reads of one alpha (the tear sheet's decision summary reads checks, live, costs, capacity
and attribution of them, docs/dashboard.md "The decision summary"), each answering with the alpha alone on any deployment
(`analytics.contribution` is not one: with no approved alpha the key may read, its default set is
empty and the call a 400 naming `reference`). `review_alpha` names
every one, in this order, after what the alpha is: a decision tool added here is in the prompt."""


def review_steps(decision_tools: tuple[tuple[str, str], ...]) -> tuple[Step, ...]:
    """`review_alpha`'s steps: what the alpha is, then each of `decision_tools` on it."""
    return (
        Step(
            "catalog.alphas.get", {"alpha": "alpha"}, "what the alpha is (its thesis, universe, rebalance)."
        ),
        *(Step(tool, {"alpha": "alpha"}, why) for tool, why in decision_tools),
    )


PROMPTS: tuple[ResearchPrompt, ...] = (
    ResearchPrompt(
        name="review_alpha",
        title="Review an alpha against the policy",
        description="Review one alpha against the deployment's promotion policy.",
        arguments=(ALPHA,),
        steps=review_steps(DECISION_TOOLS),
        brief="Report each failed or unmeasurable check first, quoting its value and threshold as the "
        "answers give them (units included), then the passes, then what the other answers say of risk, the "
        "live record, costs, capacity and fragility. Give a recommendation (promote, "
        "wait, reject) and say which figure would change it. Quote `meta.run` so the review is reproducible.",
    ),
    ResearchPrompt(
        name="compare_alphas",
        title="Compare two alphas",
        description="Compare two alphas side by side and say which one to prefer, and why.",
        arguments=(ALPHA, ("other", "The alpha_id to compare it with.")),
        steps=(
            Step(
                "analytics.compare",
                {"alpha": "alpha", "with": "other"},
                "both alphas' figures over their common window, and their differences.",
            ),
            Step("analytics.checks", {"alpha": "alpha"}, "the first alpha against the policy."),
            Step("analytics.checks", {"alpha": "other"}, "the second alpha against the policy."),
        ),
        brief="Say where the two differ by more than noise (the comparison states the significance), "
        "how correlated they are, and which one the policy prefers. Quote both `meta.run` values.",
    ),
    ResearchPrompt(
        name="is_it_still_working",
        title="Is it still working?",
        description="Check whether an alpha's live record holds up against its backtest.",
        arguments=(ALPHA,),
        steps=(
            Step(
                "analytics.live",
                {"alpha": "alpha"},
                "the in-sample (backtest) and out-of-sample (live) figures and their decay.",
            ),
            Step("analytics.rolling", {"alpha": "alpha"}, "the rolling figures, to see when a change began."),
            Step("analytics.drawdowns", {"alpha": "alpha"}, "the drawdowns, the current one first if open."),
        ),
        brief="Answer yes, no or too early to say (too few live sessions), with the live and backtest "
        "information ratios, the decay ratio and the live sessions counted. Mention an open drawdown.",
    ),
)

BY_NAME: dict[str, ResearchPrompt] = {prompt.name: prompt for prompt in PROMPTS}


def check_tools() -> None:
    """Every tool a prompt names is a tool, and every argument a step gives it is one it takes."""
    tools = route_tools()
    for prompt in PROMPTS:
        for step in prompt.steps:
            tool = tools[step.tool]  # a KeyError names a tool that does not exist
            unknown = set(step.arguments) - set(tool.path_names) - tool.query_names
            if unknown:
                raise RuntimeError(f"prompt {prompt.name}: {step.tool} takes no {sorted(unknown)}")


def listed(may_call: Callable[[str], bool]) -> list[types.Prompt]:
    return [prompt.declaration() for prompt in PROMPTS if all(may_call(tool) for tool in prompt.tools)]


def rendered(
    prompt: ResearchPrompt, given: Mapping[str, Any] | None
) -> types.GetPromptResult | dict[str, str]:
    """The prompt with the caller's arguments, or the missing ones by name."""
    values = {name: str((given or {}).get(name) or "") for name, _ in prompt.arguments}
    missing = {name: "is required" for name, value in values.items() if not value}
    if missing:
        return missing
    return types.GetPromptResult(
        description=prompt.description,
        messages=[types.PromptMessage(role="user", content=types.TextContent(text=prompt.text(values)))],
    )
