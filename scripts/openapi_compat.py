"""Fail on a breaking change to the committed OpenAPI document, unless the changelog owns up.

    python scripts/openapi_compat.py                  # working copy against HEAD~1
    python scripts/openapi_compat.py --base REF       # ... against openapi/openapi.json at REF
    python scripts/openapi_compat.py --baseline FILE  # ... against a file

What counts as breaking, for a client written against the baseline:

- a path, an operation, a response status, a response media type or a response
  header that is gone;
- a property gone from a request or a response schema; a request parameter gone;
- a request property or parameter that became required (or a new required one),
  a request body that became required;
- an enum value (or a `oneOf`/`anyOf` variant) gone, in a request or a response;
- a narrowed type: the type changed, `maxLength`/`maximum`/`maxItems` lowered or
  added, `minLength`/`minimum`/`minItems` raised or added, a `pattern` or
  `format` added or changed, `null` no longer allowed; in a response also `null`
  or another type newly possible, and a property that may now be missing.

`$ref`s into the same document (`#/components/...`) are resolved; a change inside
a component schema is reported once, under the schema's name, with the
operations that use it.

Each breaking change must be acknowledged in CHANGELOG.md: a line in the
"Unreleased" section that contains `BREAKING:` and names the schema the change
is in (e.g. `MatchRead`), or, for a change outside any component schema or to
acknowledge it path by path, every API path it affects (e.g.
`/v1/matches/{match_id}`). Exit status: 0 when there is nothing unacknowledged,
1 when there is, 2 when the baseline cannot be read.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DOCUMENT = ROOT / "openapi" / "openapi.json"
CHANGELOG = ROOT / "CHANGELOG.md"
DEFAULT_BASE = "HEAD~1"

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
REQUEST = "request"
RESPONSE = "response"

# Lower bounds (a new value above the old one narrows) and upper bounds (below narrows).
LOWER_BOUNDS = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties")
UPPER_BOUNDS = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties")

Json = Any


@dataclass(frozen=True)
class Finding:
    """One breaking change, before it is attached to the operations it affects."""

    schema: str | None  # the component schema it is in, if any
    where: str  # e.g. "MatchRead.players[].name" or "GET /v1/games response 200"
    message: str
    direction: str  # REQUEST or RESPONSE (or "" for path/operation level)


@dataclass
class BreakingChange:
    schema: str | None
    where: str
    message: str
    direction: str
    operations: set[str] = field(default_factory=set)  # "GET /v1/matches/{match_id}"
    paths: set[str] = field(default_factory=set)  # "/v1/matches/{match_id}"
    acknowledged: bool = False

    def describe(self) -> str:
        ops = sorted(self.operations)
        side = f"{self.direction}; " if self.direction else ""
        used = f" [{side}{', '.join(ops)}]" if self.schema and ops else ""
        mark = " (acknowledged in the changelog)" if self.acknowledged else ""
        return f"{self.where}: {self.message}{used}{mark}"


# --- references ------------------------------------------------------------------


def _resolve(doc: Json, node: Json) -> tuple[Json, str | None]:
    """Follow local $refs; return the target and the last components/schemas name seen."""
    name = None
    seen: set[str] = set()
    while isinstance(node, dict) and isinstance(node.get("$ref"), str):
        ref = node["$ref"]
        if not ref.startswith("#/") or ref in seen:
            break  # an external or circular reference: leave it as it is
        seen.add(ref)
        parts = [p.replace("~1", "/").replace("~0", "~") for p in ref[2:].split("/")]
        target: Json = doc
        for part in parts:
            if isinstance(target, dict) and part in target:
                target = target[part]
            else:
                return node, name
        if len(parts) == 3 and parts[:2] == ["components", "schemas"]:
            name = parts[2]
        node = target
    return node, name


def _dict(value: Json) -> dict[str, Json]:
    return value if isinstance(value, dict) else {}


def _ref_name(node: Json) -> str | None:
    if isinstance(node, dict) and isinstance(node.get("$ref"), str):
        return str(node["$ref"]).rsplit("/", 1)[-1]
    return None


# --- schemas ---------------------------------------------------------------------


def _is_null_schema(doc: Json, node: Json) -> bool:
    node, _ = _resolve(doc, node)
    return isinstance(node, dict) and (
        node.get("type") == "null" or node.get("enum") == [None] or node.get("const", 0) is None
    )


def _variants(node: dict[str, Json]) -> list[Json] | None:
    for key in ("oneOf", "anyOf"):
        if isinstance(node.get(key), list):
            return list(node[key])
    return None


def _nullable(doc: Json, node: dict[str, Json]) -> bool:
    types = node.get("type")
    if node.get("nullable") is True or types == "null":
        return True
    if isinstance(types, list) and "null" in types:
        return True
    if isinstance(node.get("enum"), list) and None in node["enum"]:
        return True
    variants = _variants(node) or []
    return any(_is_null_schema(doc, v) for v in variants)


def _types(doc: Json, node: Json, depth: int = 0) -> set[str] | None:
    """The JSON types a schema allows, leaving out null; None when it does not say."""
    node, _ = _resolve(doc, node)
    if not isinstance(node, dict) or depth > 20:
        return None
    variants = _variants(node)
    if variants is not None:
        out: set[str] = set()
        for variant in variants:
            if _is_null_schema(doc, variant):
                continue
            sub = _types(doc, variant, depth + 1)
            if sub is None:
                return None
            out |= sub
        return out
    declared = node.get("type")
    if isinstance(declared, str):
        return {declared} - {"null"}
    if isinstance(declared, list):
        return {t for t in declared if t != "null"}
    if "properties" in node or "additionalProperties" in node:
        return {"object"}
    if "items" in node:
        return {"array"}
    values = _enum(node)
    if values:
        return {_json_type(v) for v in values if v is not None}
    return None


def _json_type(value: Json) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _enum(node: dict[str, Json]) -> list[Json] | None:
    if isinstance(node.get("enum"), list):
        return [v for v in node["enum"] if v is not None]
    if "const" in node and node["const"] is not None:
        return [node["const"]]
    return None


def _covers(types: set[str], wanted: str) -> bool:
    return wanted in types or (wanted == "integer" and "number" in types)


def _show(value: Json) -> str:
    return json.dumps(value, ensure_ascii=False)


class _Comparer:
    def __init__(self, old_doc: Json, new_doc: Json) -> None:
        self.old_doc = old_doc
        self.new_doc = new_doc
        # (old component, new component, direction) -> findings; [] while in progress (cycles)
        self._components: dict[tuple[str, str, str], list[Finding]] = {}

    # A schema node: follow references, then nullability, types, variants.
    def schema(
        self, old: Json, new: Json, direction: str, where: str, ctx: str | None
    ) -> list[Finding]:
        old_node, old_name = _resolve(self.old_doc, old)
        new_node, new_name = _resolve(self.new_doc, new)
        if old_name is not None and new_name is not None:
            key = (old_name, new_name, direction)
            if key not in self._components:
                self._components[key] = []  # a reference cycle ends here
                label = old_name if old_name == new_name else f"{old_name}(now {new_name})"
                self._components[key] = self._node(old_node, new_node, direction, label, old_name)
            return self._components[key]
        if old_name is not None or new_name is not None:
            # A reference on one side only. Two unions (an inline one that became a named
            # component, or back) compare variant by variant; against a union, a single
            # reference is one of the variants (`X` became `anyOf: [X, Y]`); otherwise
            # compare it as an inline schema.
            both_unions = (
                isinstance(old_node, dict)
                and isinstance(new_node, dict)
                and _variants(old_node) is not None
                and _variants(new_node) is not None
            )
            if both_unions:
                return self._node(old_node, new_node, direction, where, ctx)
            if isinstance(new_node, dict) and old_name and _variants(new_node) is not None:
                return self._node({"anyOf": [old]}, new_node, direction, where, ctx)
            if isinstance(old_node, dict) and new_name and _variants(old_node) is not None:
                return self._node(old_node, {"anyOf": [new]}, direction, where, ctx)
            name = old_name or new_name or where
            return self._node(old_node, new_node, direction, name, name)
        return self._node(old_node, new_node, direction, where, ctx)

    def _node(
        self, old: Json, new: Json, direction: str, where: str, ctx: str | None
    ) -> list[Finding]:
        if not isinstance(old, dict) or not isinstance(new, dict):
            if old is not False and new is False:
                return [Finding(ctx, where, "schema no longer accepts anything", direction)]
            return []
        out: list[Finding] = []

        def breaking(message: str) -> None:
            out.append(Finding(ctx, where, message, direction))

        old_null, new_null = _nullable(self.old_doc, old), _nullable(self.new_doc, new)
        if old_null and not new_null:
            breaking("no longer nullable" if direction == RESPONSE else "null no longer accepted")
        elif new_null and not old_null and direction == RESPONSE:
            breaking("may now be null")

        old_vars = [v for v in (_variants(old) or [old]) if not _is_null_schema(self.old_doc, v)]
        new_vars = [v for v in (_variants(new) or [new]) if not _is_null_schema(self.new_doc, v)]
        # `anyOf: [{$ref: X}, {type: null}]` on both sides: X's own comparison checks its type.
        delegated = (
            len(old_vars) == 1
            and len(new_vars) == 1
            and (_ref_name(old_vars[0]) is not None or _ref_name(new_vars[0]) is not None)
        )
        old_types, new_types = _types(self.old_doc, old), _types(self.new_doc, new)
        if new_types is not None and not delegated:
            if old_types is None:
                if direction == REQUEST:
                    breaking(f"type narrowed from any to {'|'.join(sorted(new_types))}")
            else:
                lost = sorted(t for t in old_types if not _covers(new_types, t))
                gained = sorted(new_types - old_types)
                if lost or (direction == RESPONSE and gained):
                    breaking(
                        f"type changed from {'|'.join(sorted(old_types))}"
                        f" to {'|'.join(sorted(new_types))}"
                    )

        if _variants(old) is None and _variants(new) is None:
            out.extend(self._single(old, new, direction, where, ctx))
        elif len(old_vars) == 1 and len(new_vars) == 1:
            out.extend(self._pair(old_vars[0], new_vars[0], direction, where, ctx))
        else:
            out.extend(self.union_of(old_vars, new_vars, direction, where, ctx))
        return out

    def _pair(
        self, old: Json, new: Json, direction: str, where: str, ctx: str | None
    ) -> list[Finding]:
        """Two variants: through schema() if either is a $ref or a union, else compared here."""
        if _ref_name(old) or _ref_name(new):
            return self.schema(old, new, direction, where, ctx)
        if isinstance(old, dict) and isinstance(new, dict):
            if _variants(old) is not None or _variants(new) is not None:
                return self._node(old, new, direction, where, ctx)
            return self._single(old, new, direction, where, ctx)
        return []

    def union_of(
        self,
        old_vars: list[Json],
        new_vars: list[Json],
        direction: str,
        where: str,
        ctx: str | None,
    ) -> list[Finding]:
        def keyed(variants: list[Json]) -> dict[str, Json]:
            out: dict[str, Json] = {}
            inline = 0
            for variant in variants:
                name = _ref_name(variant)
                if name is not None:
                    # FastAPI splits a model used both ways into X-Input and X-Output:
                    # the same variant under a new component name.
                    name = name.removesuffix("-Input").removesuffix("-Output")
                if name is None:
                    name = f"#{inline}"
                    inline += 1
                out[name] = variant
            return out

        old_keyed, new_keyed = keyed(old_vars), keyed(new_vars)
        found: list[Finding] = []
        for key, variant in old_keyed.items():
            label = key if not key.startswith("#") else f"variant {key}"
            if key not in new_keyed:
                found.append(Finding(ctx, where, f"{label} removed from the union", direction))
                continue
            found.extend(self._pair(variant, new_keyed[key], direction, f"{where}<{label}>", ctx))
        return found

    def _single(
        self,
        old: dict[str, Json],
        new: dict[str, Json],
        direction: str,
        where: str,
        ctx: str | None,
    ) -> list[Finding]:
        out: list[Finding] = []

        def breaking(message: str, at: str = where) -> None:
            out.append(Finding(ctx, at, message, direction))

        old_enum, new_enum = _enum(old), _enum(new)
        if old_enum is not None and new_enum is not None:
            for value in old_enum:
                if value not in new_enum:
                    breaking(f"enum value {_show(value)} removed")
        elif old_enum is None and new_enum is not None and direction == REQUEST:
            breaking(f"now restricted to the values {_show(new_enum)}")

        for bound in LOWER_BOUNDS + UPPER_BOUNDS:
            before, after = old.get(bound), new.get(bound)
            if isinstance(after, bool) or not isinstance(after, int | float):
                continue  # absent, or OpenAPI 3.0's boolean exclusiveMinimum/Maximum
            if not isinstance(before, int | float) or isinstance(before, bool):
                breaking(f"{bound} {_show(after)} added")
            elif (bound in LOWER_BOUNDS and after > before) or (
                bound in UPPER_BOUNDS and after < before
            ):
                verb = "raised" if bound in LOWER_BOUNDS else "lowered"
                breaking(f"{bound} {verb} from {_show(before)} to {_show(after)}")

        for keyword in ("pattern", "format", "multipleOf"):
            before, after = old.get(keyword), new.get(keyword)
            if after is not None and before != after:
                if before is None:
                    if direction == REQUEST:
                        breaking(f"{keyword} {_show(after)} added")
                else:
                    breaking(f"{keyword} changed from {_show(before)} to {_show(after)}")
        if (
            direction == REQUEST
            and new.get("uniqueItems") is True
            and old.get("uniqueItems") is not True
        ):
            breaking("uniqueItems added")

        old_props: dict[str, Json] = _dict(old.get("properties"))
        new_props: dict[str, Json] = _dict(new.get("properties"))
        old_req = set(old.get("required") or [])
        new_req = set(new.get("required") or [])
        for name, sub in old_props.items():
            at = f"{where}.{name}"
            if name not in new_props:
                breaking(f"{direction} property removed", at)
                continue
            if direction == REQUEST and name in new_req and name not in old_req:
                breaking("request property became required", at)
            if direction == RESPONSE and name in old_req and name not in new_req:
                breaking("response property is no longer always present", at)
            out.extend(self.schema(sub, new_props[name], direction, at, ctx))
        if direction == REQUEST:
            for name in sorted(new_req - old_req - set(old_props)):
                breaking("new required request property", f"{where}.{name}")

        old_extra, new_extra = old.get("additionalProperties"), new.get("additionalProperties")
        if direction == REQUEST and new_extra is False and old_extra is not False and old_props:
            breaking("additional properties no longer accepted")
        if isinstance(old_extra, dict) and isinstance(new_extra, dict):
            out.extend(self.schema(old_extra, new_extra, direction, f"{where}{{*}}", ctx))

        if "items" in old and "items" in new:
            out.extend(self.schema(old["items"], new["items"], direction, f"{where}[]", ctx))
        return out


# --- operations -----------------------------------------------------------------


def _parameters(doc: Json, path_item: dict[str, Json], op: dict[str, Json]) -> dict[str, Json]:
    out: dict[str, Json] = {}
    for raw in list(path_item.get("parameters") or []) + list(op.get("parameters") or []):
        param, _ = _resolve(doc, raw)
        if isinstance(param, dict) and "name" in param and "in" in param:
            out[f"{param['in']} {param['name']}"] = param
    return out


def _content(doc: Json, node: Json) -> dict[str, Json]:
    node, _ = _resolve(doc, node)
    if isinstance(node, dict) and isinstance(node.get("content"), dict):
        return _dict(node["content"])
    return {}


def _operation(
    cmp: _Comparer, path: str, method: str, old_item: Json, new_item: Json
) -> list[Finding]:
    old_doc, new_doc = cmp.old_doc, cmp.new_doc
    old_op, new_op = old_item[method], new_item[method]
    label = f"{method.upper()} {path}"
    out: list[Finding] = []

    old_params = _parameters(old_doc, old_item, old_op)
    new_params = _parameters(new_doc, new_item, new_op)
    for key, param in old_params.items():
        where = f"{label} parameter {key}"
        if key not in new_params:
            out.append(Finding(None, where, "parameter removed", REQUEST))
            continue
        if new_params[key].get("required") and not param.get("required"):
            out.append(Finding(None, where, "parameter became required", REQUEST))
        if "schema" in param and "schema" in new_params[key]:
            out.extend(cmp.schema(param["schema"], new_params[key]["schema"], REQUEST, where, None))
    for key, param in new_params.items():
        if key not in old_params and param.get("required"):
            out.append(Finding(None, f"{label} parameter {key}", "new required parameter", REQUEST))

    old_body, _ = _resolve(old_doc, old_op.get("requestBody"))
    new_body, _ = _resolve(new_doc, new_op.get("requestBody"))
    if isinstance(new_body, dict) and new_body.get("required"):
        if not isinstance(old_body, dict):
            out.append(Finding(None, f"{label} request body", "new required body", REQUEST))
        elif not old_body.get("required"):
            out.append(Finding(None, f"{label} request body", "body became required", REQUEST))
    if isinstance(old_body, dict) and isinstance(new_body, dict):
        new_content = _content(new_doc, new_body)
        for media, old_media in _content(old_doc, old_body).items():
            where = f"{label} request body {media}"
            if media not in new_content:
                out.append(Finding(None, where, "media type no longer accepted", REQUEST))
            elif "schema" in old_media and "schema" in new_content[media]:
                out.extend(
                    cmp.schema(
                        old_media["schema"], new_content[media]["schema"], REQUEST, where, None
                    )
                )

    old_responses = old_op.get("responses") or {}
    new_responses = new_op.get("responses") or {}
    for status, old_raw in old_responses.items():
        where = f"{label} response {status}"
        if status not in new_responses:
            out.append(Finding(None, where, "response status removed", RESPONSE))
            continue
        old_resp, _ = _resolve(old_doc, old_raw)
        new_resp, _ = _resolve(new_doc, new_responses[status])
        if not isinstance(old_resp, dict) or not isinstance(new_resp, dict):
            continue
        new_headers = {k.lower() for k in (new_resp.get("headers") or {})}
        for header in old_resp.get("headers") or {}:
            if header.lower() not in new_headers:
                out.append(Finding(None, f"{where} header {header}", "header removed", RESPONSE))
        new_content = _content(new_doc, new_resp)
        for media, old_media in _content(old_doc, old_resp).items():
            at = f"{where} {media}"
            if media not in new_content:
                out.append(Finding(None, at, "media type removed", RESPONSE))
            elif "schema" in old_media and "schema" in new_content[media]:
                out.extend(
                    cmp.schema(
                        old_media["schema"], new_content[media]["schema"], RESPONSE, at, None
                    )
                )
    return out


def compare(old: Json, new: Json) -> list[BreakingChange]:
    """Every breaking change from the `old` OpenAPI document to the `new` one."""
    cmp = _Comparer(old, new)
    changes: dict[tuple[str | None, str, str, str], BreakingChange] = {}

    def add(finding: Finding, operation: str | None, path: str) -> None:
        key = (finding.schema, finding.where, finding.message, finding.direction)
        change = changes.get(key)
        if change is None:
            change = changes[key] = BreakingChange(*key)
        if operation:
            change.operations.add(operation)
        change.paths.add(path)

    old_paths = old.get("paths") or {}
    new_paths = new.get("paths") or {}
    for path, old_item in old_paths.items():
        if path not in new_paths:
            add(Finding(None, path, "path removed", ""), None, path)
            continue
        new_item = new_paths[path]
        for method in HTTP_METHODS:
            if method not in old_item:
                continue
            label = f"{method.upper()} {path}"
            if method not in new_item:
                add(Finding(None, label, "operation removed", ""), label, path)
                continue
            for finding in _operation(cmp, path, method, old_item, new_item):
                add(finding, label, path)
    return sorted(changes.values(), key=lambda c: (c.schema or "", c.where, c.message))


# --- the changelog ---------------------------------------------------------------

_UNRELEASED = re.compile(r"^##\s+\[?unreleased\]?", re.IGNORECASE)


def breaking_notes(changelog: str) -> list[str]:
    """The lines with `BREAKING:` in the changelog's Unreleased section."""
    notes: list[str] = []
    inside = False
    for line in changelog.splitlines():
        if line.startswith("## ") or _UNRELEASED.match(line):
            inside = bool(_UNRELEASED.match(line))
            continue
        if inside and "BREAKING:" in line:
            notes.append(line)
    return notes


def _mentions(line: str, subject: str) -> bool:
    pattern = r"(?<![\w/{}])" + re.escape(subject) + r"(?![\w/{}-])"
    return re.search(pattern, line) is not None


def acknowledge(changes: Iterable[BreakingChange], changelog: str) -> None:
    """Mark the changes that a BREAKING: line of the Unreleased section names."""
    notes = breaking_notes(changelog)
    for change in changes:
        by_schema = change.schema is not None and any(_mentions(n, change.schema) for n in notes)
        by_paths = bool(change.paths) and all(
            any(_mentions(n, path) for n in notes) for path in change.paths
        )
        change.acknowledged = by_schema or by_paths


def check(old: Json, new: Json, changelog: str) -> list[BreakingChange]:
    """The breaking changes, each marked acknowledged or not."""
    changes = compare(old, new)
    acknowledge(changes, changelog)
    return changes


# --- the command -----------------------------------------------------------------


class BaselineError(Exception):
    pass


def _git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)


def load_from_git(ref: str, document: Path, explicit: bool) -> Json | None:
    """The document at `ref`, or None when that commit has no such file (or no such commit
    exists and the ref is the default one, as in a repository with a single commit)."""
    if _git("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}").returncode != 0:
        if explicit:
            raise BaselineError(f"unknown git ref {ref!r}")
        return None
    top = _git("rev-parse", "--show-toplevel").stdout.strip()
    rel = document.resolve().relative_to(Path(top).resolve()).as_posix()
    shown = _git("show", f"{ref}:{rel}")
    if shown.returncode != 0:
        return None
    return json.loads(shown.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--base", help=f"git ref of the baseline (default: {DEFAULT_BASE})")
    source.add_argument("--baseline", type=Path, help="a baseline OpenAPI file instead of git")
    parser.add_argument("--current", type=Path, default=DOCUMENT, help="the document to check")
    parser.add_argument("--changelog", type=Path, default=CHANGELOG)
    args = parser.parse_args(argv)

    try:
        if args.baseline is not None:
            old = json.loads(args.baseline.read_text(encoding="utf-8"))
            label = str(args.baseline)
        else:
            ref = args.base or DEFAULT_BASE
            old = load_from_git(ref, args.current, explicit=args.base is not None)
            label = f"{ref}:{args.current.name}"
            if old is None:
                print(f"openapi-compat: no baseline at {ref}: nothing to compare, passing")
                return 0
    except (OSError, ValueError, BaselineError) as exc:
        print(f"openapi-compat: cannot read the baseline: {exc}", file=sys.stderr)
        return 2
    new = json.loads(args.current.read_text(encoding="utf-8"))
    changelog = args.changelog.read_text(encoding="utf-8") if args.changelog.exists() else ""

    changes = check(old, new, changelog)
    if not changes:
        print(f"openapi-compat: no breaking change against {label}")
        return 0
    pending = [c for c in changes if not c.acknowledged]
    print(f"openapi-compat: {len(changes)} breaking change(s) against {label}:")
    for change in changes:
        print(f"  - {change.describe()}")
    if not pending:
        print("openapi-compat: all acknowledged in the changelog")
        return 0
    print(
        f"openapi-compat: {len(pending)} not acknowledged. Keep compatibility, or add a line\n"
        f"  with 'BREAKING:' and the schema name or API path to the Unreleased section of\n"
        f"  {args.changelog.name}, e.g. '- BREAKING: `{_example_subject(pending[0])}` ...'"
    )
    return 1


def _example_subject(change: BreakingChange) -> str:
    return change.schema or sorted(change.paths)[0]


if __name__ == "__main__":
    sys.exit(main())
