#!/usr/bin/env python3
"""Checks the shipped Grafana dashboard and Prometheus alert rules against a /metrics scrape.

Usage: monitoring_check.py METRICS_TEXT DASHBOARD_JSON ALERTS_YAML [PROMQL_OUT]

- The dashboard is importable: a title, a uid, a Prometheus datasource variable that every
  panel and target uses, panels with unique ids, a type and a grid position.
- The alert file is a standard rule-group file: groups with unique names, rules with alert,
  expr, labels.severity and annotations.summary; alert names unique.
- Every metric name that a dashboard or rule expression reads is a sample name of the scrape.
  A histogram is read through its _bucket, _sum and _count series; the bare family name of a
  histogram is no series and is reported. Names Prometheus makes itself (up, scrape_*) pass.
- PROMQL_OUT, when given, receives every dashboard expression (Grafana variables replaced) as
  a recording rule file, for `promtool check rules` to parse.
Exit status 0 when everything holds, 1 with one line per problem otherwise.
"""
import json
import re
import sys

import yaml

# PromQL keywords that look like identifiers (functions and aggregations are recognised by the
# parenthesis that follows them).
KEYWORDS = {"and", "or", "unless", "by", "without", "on", "ignoring", "group_left",
            "group_right", "offset", "bool", "inf", "nan", "atan2"}
GROUPING = re.compile(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)")
# Grafana's own template variables, replaced by something PromQL accepts.
GRAFANA_VARS = {"$__rate_interval": "5m", "$__interval": "1m", "$__range": "1h",
                "${__rate_interval}": "5m", "${__interval}": "1m", "${__range}": "1h"}
SYNTHETIC = re.compile(r"^(up|scrape_[a-z_]+|ALERTS|ALERTS_FOR_STATE)$")
TOKEN = re.compile(r"0x[0-9a-fA-F]+|\d+(?:\.\d*)?(?:[eE][+-]?\d+)?[a-zA-Z]*|\.\d+"
                   r"|[a-zA-Z_:][a-zA-Z0-9_:]*|.", re.S)


def with_grafana_values(expr):
    for name, value in GRAFANA_VARS.items():
        expr = expr.replace(name, value)
    return re.sub(r"\$\{?[A-Za-z_][A-Za-z0-9_]*\}?", ".*", expr)


def metric_names(expr):
    """The metric names a PromQL expression reads."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`', '""', expr)
    text = re.sub(r"\{[^}]*\}", " ", text)        # label matchers
    text = re.sub(r"\[[^\]]*\]", " ", text)       # ranges and subqueries
    text = GROUPING.sub(" ", text)                # by (...), on (...), group_left (...)
    text = re.sub(r"\boffset\s+-?[0-9a-z]+", " ", text)
    text = re.sub(r"@\s*(start\(\)|end\(\)|[0-9.]+)", " ", text)
    names = set()
    tokens = [t for t in TOKEN.findall(text) if not t.isspace()]
    for i, tok in enumerate(tokens):
        if not re.match(r"[a-zA-Z_:]", tok) or tok.lower() in KEYWORDS:
            continue
        if i + 1 < len(tokens) and tokens[i + 1] == "(":
            continue  # a function or an aggregation
        names.add(tok)
    return names


def template_query_names(query):
    """The metric names a Grafana Prometheus variable query reads."""
    m = re.match(r"\s*label_values\s*\((.*)\)\s*$", query, re.S)
    if m:
        args = m.group(1)
        depth, cut = 0, len(args)
        for i, ch in enumerate(args):  # the selector ends at the last top-level comma
            if ch in "({[":
                depth += 1
            elif ch in ")}]":
                depth -= 1
            if ch == "," and depth == 0:
                cut = i
        selector = args[:cut] if cut < len(args) else ""
        return metric_names(selector) if selector.strip() else set()
    m = re.match(r"\s*(metrics|label_names)\s*\(", query)
    if m:
        return set()
    m = re.match(r"\s*query_result\s*\((.*)\)\s*$", query, re.S)
    return metric_names(m.group(1) if m else query)


def scrape(path):
    samples, types = set(), {}
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(None, 3)
            types[name] = kind
        elif line and not line.startswith("#"):
            samples.add(re.match(r"[a-zA-Z_:][a-zA-Z0-9_:]*", line).group(0))
    return samples, types


def check_dashboard(dash, problems):
    exprs = []
    for key in ("title", "uid", "panels", "templating", "schemaVersion"):
        if key not in dash:
            problems.append(f"dashboard: no {key}")
    variables = dash.get("templating", {}).get("list", [])
    ds_vars = [v["name"] for v in variables
               if v.get("type") == "datasource" and v.get("query") == "prometheus"]
    if not ds_vars:
        problems.append("dashboard: no Prometheus datasource variable")
    ds_refs = {"${%s}" % n for n in ds_vars} | {"$%s" % n for n in ds_vars}

    def uses_variable(ds, where):
        uid = ds.get("uid") if isinstance(ds, dict) else ds
        if uid not in ds_refs:
            problems.append(f"dashboard: {where} does not use the datasource variable ({ds!r})")

    ids = set()

    def walk(panels):
        for p in panels:
            where = f"panel {p.get('id')} {p.get('title')!r}"
            for key in ("id", "type", "title", "gridPos"):
                if key not in p:
                    problems.append(f"dashboard: {where} has no {key}")
            if p.get("id") in ids:
                problems.append(f"dashboard: {where}: duplicate id")
            ids.add(p.get("id"))
            if p.get("type") != "row":
                uses_variable(p.get("datasource"), where)
                if not p.get("targets"):
                    problems.append(f"dashboard: {where} has no targets")
            for t in p.get("targets", []):
                uses_variable(t.get("datasource", p.get("datasource")), where + " target")
                if not t.get("expr"):
                    problems.append(f"dashboard: {where} target without expr")
                else:
                    exprs.append((where, t["expr"]))
            walk(p.get("panels", []))

    walk(dash.get("panels", []))
    names = {}
    for where, expr in exprs:
        for n in metric_names(with_grafana_values(expr)):
            names.setdefault(n, where)
    for v in variables:
        if v.get("type") != "query":
            continue
        uses_variable(v.get("datasource"), f"variable {v.get('name')}")
        q = v.get("query")
        q = q.get("query", "") if isinstance(q, dict) else (q or "")
        for n in template_query_names(q):
            names.setdefault(n, f"variable {v.get('name')}")
    return names, exprs


def check_rules(doc, problems):
    names = {}
    if not isinstance(doc, dict) or not isinstance(doc.get("groups"), list) or not doc["groups"]:
        problems.append("alerts: no groups")
        return names
    seen_groups, seen_alerts = set(), set()
    for g in doc["groups"]:
        if not isinstance(g, dict) or not g.get("name") or not isinstance(g.get("rules"), list):
            problems.append(f"alerts: a group without a name or rules: {g!r:.80}")
            continue
        if g["name"] in seen_groups:
            problems.append(f"alerts: duplicate group {g['name']}")
        seen_groups.add(g["name"])
        allowed = {"alert", "record", "expr", "for", "keep_firing_for", "labels", "annotations"}
        for r in g["rules"]:
            name = r.get("alert") or r.get("record")
            if not name or not isinstance(r.get("expr"), str):
                problems.append(f"alerts: a rule without a name or expr in {g['name']}")
                continue
            if set(r) - allowed:
                problems.append(f"alerts: {name}: unknown keys {sorted(set(r) - allowed)}")
            if "alert" in r:
                if name in seen_alerts:
                    problems.append(f"alerts: duplicate alert {name}")
                seen_alerts.add(name)
                if not (r.get("labels") or {}).get("severity"):
                    problems.append(f"alerts: {name} has no severity label")
                if not (r.get("annotations") or {}).get("summary"):
                    problems.append(f"alerts: {name} has no summary")
                if "for" in r and not re.fullmatch(r"(\d+(ms|s|m|h|d|w|y))+", str(r["for"])):
                    problems.append(f"alerts: {name}: bad for: {r['for']}")
            for n in metric_names(r["expr"]):
                names.setdefault(n, f"alert {name}")
    return names


def main():
    metrics_path, dashboard_path, alerts_path = sys.argv[1:4]
    problems = []
    samples, types = scrape(metrics_path)
    with open(dashboard_path, encoding="utf-8") as f:
        dash = json.load(f)
    with open(alerts_path, encoding="utf-8") as f:
        rules = yaml.safe_load(f)
    used, exprs = check_dashboard(dash, problems)
    for n, where in check_rules(rules, problems).items():
        used.setdefault(n, where)
    if not any(n.startswith("certsteward_") for n in used):
        problems.append("no certsteward_ metric found in the expressions (extraction broken?)")
    for name, where in sorted(used.items()):
        if SYNTHETIC.match(name) or name in samples:
            continue
        if types.get(name) in ("histogram", "summary"):
            problems.append(f"{where}: {name} is a {types[name]}: read its _bucket, _sum or _count")
            continue
        family = re.sub(r"_(bucket|sum|count)$", "", name)
        if family != name and types.get(family) not in ("histogram", "summary"):
            problems.append(f"{where}: {name}: {family} is no histogram in /metrics")
        else:
            problems.append(f"{where}: metric {name} is not in /metrics")
    if len(sys.argv) > 4:
        with open(sys.argv[4], "w", encoding="utf-8") as f:
            rules_out = [{"record": f"dashboard:expr_{i}", "expr": with_grafana_values(e)}
                         for i, (_, e) in enumerate(exprs)]
            yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules_out}]}, f)
    for p in problems:
        print("FAIL:", p)
    print(f"checked {len(used)} metric names from {len(exprs)} dashboard expressions and "
          f"{sum(len(g.get('rules', [])) for g in rules.get('groups', []))} rules "
          f"against {len(samples)} sample names")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
