"""Run a composite action's ``run:`` steps the way a GitHub runner would, locally.

Each step's ``${{ … }}`` expressions (``inputs.*``, ``github.*``, ``steps.<id>.outputs.*``,
``==``, ``!=``, ``&&``, ``||``) are evaluated, ``if:`` conditions decide whether it runs, and
its script runs under ``bash --noprofile --norc -eo pipefail`` (the runner's command line for
``shell: bash``) with ``GITHUB_OUTPUT``/``GITHUB_PATH``/``GITHUB_STEP_SUMMARY`` files. ``uses:``
steps are not run; they are recorded with their evaluated ``with:`` so a test can check
them.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

_EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
_TOKEN = re.compile(r"\s*(?:('[^']*')|(==|!=|&&|\|\||!)|([A-Za-z_][\w.-]*))")


@dataclass
class StepRun:
    """What one step did."""

    name: str
    ran: bool
    skipped: bool = False
    code: int = 0
    stdout: str = ""
    stderr: str = ""
    outputs: dict[str, str] = field(default_factory=dict)
    uses: str | None = None
    with_: dict[str, str] = field(default_factory=dict)


@dataclass
class ActionRun:
    action: dict[str, Any]
    inputs: dict[str, str]
    github: dict[str, str]
    steps: dict[str, dict[str, str]] = field(default_factory=dict)
    extra_path: list[str] = field(default_factory=list)

    def lookup(self, name: str) -> str:
        head, _, rest = name.partition(".")
        if head == "inputs":
            declared = self.action["inputs"][rest]  # KeyError: the action has no such input
            return self.inputs.get(rest, str(declared.get("default", "")))
        if head == "github":
            return self.github.get(rest, "")
        if head == "steps":
            step_id, _, output = rest.partition(".outputs.")
            return self.steps.get(step_id, {}).get(output, "")
        raise ValueError(f"unsupported context in expression: {name}")

    def evaluate(self, expression: str) -> Any:
        """A GitHub expression, translated token by token into a Python expression."""
        python: list[str] = []
        position = 0
        while position < len(expression):
            match = _TOKEN.match(expression, position)
            if match is None or match.end() == position:
                raise ValueError(f"cannot parse expression {expression!r}")
            literal, operator, name = match.groups()
            if literal is not None:
                python.append(repr(literal[1:-1]))
            elif operator is not None:
                python.append({"&&": " and ", "||": " or ", "!": " not "}.get(operator, operator))
            else:
                python.append(repr(self.lookup(name)))
            position = match.end()
        return eval("".join(python), {"__builtins__": {}})  # noqa: S307 - our own tokens only

    def substitute(self, text: str) -> str:
        return _EXPRESSION.sub(lambda m: str(self.evaluate(m.group(1))), text)


def run_action(action_file: Path, *, inputs: dict[str, str], github: dict[str, str],
               env: dict[str, str], cwd: Path, work: Path,
               path_for_step: dict[str, str] | None = None) -> list[StepRun]:
    """Run every step of the composite action in ``action_file``, in order.

    ``path_for_step`` maps a step id to a directory put first on PATH for that step only
    (to stand in for an installer).
    """
    action = yaml.safe_load(action_file.read_text(encoding="utf-8"))
    state = ActionRun(action, inputs, github)
    results: list[StepRun] = []
    for index, step in enumerate(action["runs"]["steps"]):
        name = step.get("name", f"step {index}")
        condition = step.get("if")
        if condition is not None and not state.evaluate(_EXPRESSION.sub(r"\1", condition)):
            results.append(StepRun(name, ran=False, skipped=True, uses=step.get("uses")))
            continue
        if "uses" in step:
            with_ = {k: state.substitute(str(v)) for k, v in step.get("with", {}).items()}
            results.append(StepRun(name, ran=False, uses=step["uses"], with_=with_))
            continue
        assert step.get("shell") == "bash", f"{name}: only bash steps are supported"
        result = _run_script(state, step, env, cwd=cwd, work=work / f"step-{index}",
                             step_path=(path_for_step or {}).get(step.get("id", "")))
        results.append(result)
        if "id" in step:
            state.steps[step["id"]] = result.outputs
        if result.code != 0:
            break  # a failed step ends the action, as on a runner
    return results


def _run_script(state: ActionRun, step: dict[str, Any], env: dict[str, str], *, cwd: Path,
                work: Path, step_path: str | None) -> StepRun:
    work.mkdir(parents=True)
    script = work / "script.sh"
    script.write_text(step["run"], encoding="utf-8")
    output_file, path_file = work / "output", work / "path"
    output_file.touch()
    path_file.touch()
    step_env = dict(env)
    step_env.update({k: state.substitute(str(v)) for k, v in step.get("env", {}).items()})
    step_env.update(GITHUB_OUTPUT=str(output_file), GITHUB_PATH=str(path_file))
    path = [*([step_path] if step_path else []), *state.extra_path, env["PATH"]]
    step_env["PATH"] = os.pathsep.join(path)
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        cwd=cwd, env=step_env, capture_output=True, text=True, timeout=120, check=False,
    )
    outputs = dict(
        line.split("=", 1) for line in output_file.read_text().splitlines() if "=" in line
    )
    state.extra_path[:0] = [p for p in path_file.read_text().splitlines() if p]
    return StepRun(step.get("name", ""), ran=True, code=done.returncode, stdout=done.stdout,
                   stderr=done.stderr, outputs=outputs)
