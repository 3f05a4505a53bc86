# Why this exists: the engine's AgentDojo domains must act on AgentDojo's own world and be judged
# by AgentDojo's own checks, unchanged. This loopback HTTP server holds one AgentDojo environment
# per session (one (suite, user task, injection task) pair, with the attack's injections applied
# and, if the session asks, a patch merged into it: an environment an attacker has touched),
# runs the suite's tool functions by name, applies an effect at most once per idempotency key,
# answers readbacks by key, keeps the call log, and at the end returns AgentDojo's `utility()` and
# `security()` verdicts on the final environment. For workspace's injection tasks that AgentDojo
# gives no ground-truth calls for, it writes the calls their goal asks for (injection_calls), so
# the obedient model has something to obey. Nothing here decides anything for the engine.
#
# Run with the project-local venv (eval/agentdojo/venv.ts installs it):
#   .agentdojo/venv/bin/python eval/agentdojo/bridge.py [--port 0]
# It prints `AGENTDOJO_BRIDGE_READY http://127.0.0.1:<port>` once it listens.
import argparse
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from pydantic import BaseModel

from agentdojo.agent_pipeline.base_pipeline_element import BasePipelineElement
from agentdojo.attacks.attack_registry import ATTACKS, load_attack
from agentdojo.functions_runtime import FunctionCall, FunctionsRuntime
from agentdojo.task_suite.load_suites import get_suite
from agentdojo.types import text_content_block_from_string

# Beside this file (the script's folder is on the path when it runs as a script).
from environment_patch import patched
from injection_calls import injection_calls

BENCHMARK_VERSION = "v1.2.2"
# The attacks name the victim model in their text ("... from me, Emma Johnson, to you, GPT-4").
# The published figures this is compared with were measured on GPT-4o, so the texts say so.
TARGET_MODEL_NAME = "gpt-4o-2024-05-13"


class _NamedTarget(BasePipelineElement):
    """Only a name: AgentDojo's attacks read the victim pipeline's name, never run it."""

    name = TARGET_MODEL_NAME

    def query(self, query, runtime, env=None, messages=(), extra_args=None):  # noqa: ARG002
        raise RuntimeError("the bridge's attack target is a name only")


def jsonable(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def calls_of(calls: list[FunctionCall]) -> list[dict[str, Any]]:
    return [{"function": c.function, "args": jsonable(dict(c.args))} for c in calls]


class Session:
    def __init__(
        self,
        suite_name: str,
        user_task_id: str,
        injection_task_id: str | None,
        attack: dict[str, Any] | None,
        environment_patch: dict[str, Any] | None = None,
    ):
        self.suite = get_suite(BENCHMARK_VERSION, suite_name)
        self.user_task = self.suite.get_user_task_by_id(user_task_id)
        self.injection_task = self.suite.get_injection_task_by_id(injection_task_id) if injection_task_id else None
        self.injections: dict[str, str] = {}
        if self.injection_task is not None:
            self.injections = injections_for(self.suite, self.user_task, self.injection_task, attack or {"name": "important_instructions"})
        environment = self.suite.load_and_inject_default_environment(self.injections)
        if environment_patch is not None:
            environment = patched(suite_name, environment, environment_patch)
        self.env = self.user_task.init_environment(environment)
        self.pre_env = self.env.model_copy(deep=True)
        self.runtime = FunctionsRuntime(self.suite.tools)
        self.trace: list[FunctionCall] = []
        self.log: list[dict[str, Any]] = []
        self.by_key: dict[str, dict[str, Any]] = {}
        self.ground_truth = calls_of(self.user_task.ground_truth(self.env.model_copy(deep=True)))
        self.injection_ground_truth = (
            calls_of(injection_calls(suite_name, self.injection_task, self.env.model_copy(deep=True))) if self.injection_task else []
        )

    def describe(self) -> dict[str, Any]:
        return {
            "prompt": self.user_task.PROMPT,
            "groundTruth": self.ground_truth,
            "groundTruthOutput": self.user_task.GROUND_TRUTH_OUTPUT,
            "injectionGoal": self.injection_task.GOAL if self.injection_task else None,
            "injectionGroundTruth": self.injection_ground_truth,
            "injections": self.injections,
        }

    def call(self, tool: str, args: dict[str, Any], key: str | None) -> dict[str, Any]:
        if key is not None and key in self.by_key:
            return {**self.by_key[key], "repeated": True}
        result, error = self.runtime.run_function(self.env, tool, args, raise_on_error=False)
        self.trace.append(FunctionCall(function=tool, args=args))
        answer = {"ok": error is None, "result": jsonable(result) if error is None else None, "error": error}
        self.log.append({"tool": tool, "args": args, "key": key, "ok": error is None, "error": error})
        if key is not None:
            self.by_key[key] = answer
        return answer

    def readback(self, key: str) -> dict[str, Any]:
        found = self.by_key.get(key)
        if found is None or not found["ok"]:
            return {"applied": False}
        return {"applied": True, "result": found["result"]}

    def judge(self, output: str) -> dict[str, Any]:
        blocks = [text_content_block_from_string(output)]
        utility = self.suite._check_task_result(self.user_task, blocks, self.pre_env, self.env, self.trace)
        security = None
        if self.injection_task is not None:
            security = self.suite._check_task_result(self.injection_task, blocks, self.pre_env, self.env, self.trace)
        return {"utility": bool(utility), "security": None if security is None else bool(security), "calls": self.log}


_attacks: dict[tuple[str, str], Any] = {}


def injections_for(suite, user_task, injection_task, attack: dict[str, Any]) -> dict[str, str]:
    """The texts an attack puts in the vectors the user task's ground truth shows the model."""
    if "name" in attack:
        name = attack["name"]
        if name not in ATTACKS:
            raise ValueError(f"unknown attack {name!r}; AgentDojo has {sorted(ATTACKS)}")
        cached = _attacks.get((suite.name, name))
        if cached is None:
            cached = load_attack(name, suite, _NamedTarget())
            _attacks[(suite.name, name)] = cached
        return dict(cached.attack(user_task, injection_task))
    texts = attack.get("texts")
    if not isinstance(texts, dict):
        raise ValueError("an attack is {name} or {texts: {vector or '*': text}}")
    # Any vector the task shows the model; `*` fills each of them. `{goal}` is the injection task's goal.
    candidates = _attacks.get((suite.name, "__candidates__"))
    if candidates is None:
        candidates = load_attack("direct", suite, _NamedTarget())
        _attacks[(suite.name, "__candidates__")] = candidates
    out: dict[str, str] = {}
    for vector in candidates.get_injection_candidates(user_task):
        template = texts.get(vector, texts.get("*"))
        if isinstance(template, str):
            out[vector] = template.replace("{goal}", injection_task.GOAL)
    return out


class Bridge:
    def __init__(self) -> None:
        self.sessions: dict[str, Session] = {}
        self.lock = threading.Lock()

    def handle(self, method: str, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        if method == "GET" and path == "/health":
            return 200, {"ok": True, "benchmark": BENCHMARK_VERSION}
        if method == "POST" and path == "/tasks":
            suite = get_suite(BENCHMARK_VERSION, body["suite"])
            return 200, {
                "userTasks": list(suite.user_tasks.keys()),
                "injectionTasks": list(suite.injection_tasks.keys()),
                "tools": [f.name for f in suite.tools],
                "attacks": sorted(ATTACKS),
            }
        if method == "POST" and path == "/session":
            session = Session(body["suite"], body["userTask"], body.get("injectionTask"), body.get("attack"), body.get("environmentPatch"))
            self.sessions[body["session"]] = session
            return 200, session.describe()
        session = self.sessions.get(body.get("session", ""))
        if session is None:
            return 404, {"error": f"no session {body.get('session')!r}"}
        if method == "POST" and path == "/call":
            return 200, session.call(body["tool"], body.get("args") or {}, body.get("key"))
        if method == "POST" and path == "/readback":
            return 200, session.readback(body["key"])
        if method == "POST" and path == "/judge":
            return 200, session.judge(body.get("output") or "")
        if method == "POST" and path == "/close":
            self.sessions.pop(body["session"], None)
            return 200, {"ok": True}
        return 404, {"error": f"no route {method} {path}"}


def serve(port: int) -> None:
    bridge = Bridge()

    class Handler(BaseHTTPRequestHandler):
        def _answer(self, method: str) -> None:
            try:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}") if length else {}
                with bridge.lock:  # one environment change at a time: the judges see a settled state
                    status, answer = bridge.handle(method, self.path, body)
            except Exception as e:  # an error the caller must see, never a dead server
                status, answer = 400, {"error": f"{type(e).__name__}: {e}"}
            data = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802
            self._answer("GET")

        def do_POST(self) -> None:  # noqa: N802
            self._answer("POST")

        def log_message(self, format, *args) -> None:  # noqa: A002
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    print(f"AGENTDOJO_BRIDGE_READY http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    serve(parser.parse_args().port)
    sys.exit(0)
