#!/usr/bin/env python3
"""Score `layoutrand explain` on the explain corpus (issue 49).

    score.py RESULTS_DIR [--answer answer.json|answer-confirm.json] [--details]

RESULTS_DIR has one folder per case (what cases.sh writes): truth.json (truth.py),
answer.json (explain --format json), answer-confirm.json (with --confirm, optional) and
timing.json. Prints a Markdown table, one row per case and the totals.

Scores (flips only, the truth being truth.json's `truth` functions):
  top-1      the first finding's `functions` intersect the truth (the findings in the
             answer's order: the differential profile's `leads.leads[]`, then the placement
             screen's `findings[]`)
  top-3      some function of the first three findings is in the truth
  movers     (when the answer has `movers[]`, objects with `function`) the first mover is in
             the truth / one of the first three is: an alternative "first finding"
  confirmed  culprits confirmed by --confirm (from answer-confirm.json when present, else
             answer.json): in the truth / not in it (false confirmations)
  baseline A the function with the most I1 misses in explain's baseline profile (`hot[]`,
             `i1_misses`; the program's own functions, default layout): top-1 and top-3
  baseline B the function with the most I1 misses in the slowest binary's profile (every
             object, truth.py's rerun): top-1
Nulls: the number of findings (false findings) and of confirmed culprits.
Fixes: the fixes of confirmed culprits: proven (`confirmation.fix_proof.holds`: the fast
placement relinked on every confirmed seed put the metric nearer the fast level in each),
not holding (a proof that failed: explain prints "none proven", not the fix), unproven (no
proof: printed with "unproven"), and how many say that they copy the placement of the
binaries with the higher means (a fix towards the slow side).
Cost: explain's wall time / the run's (and explain --confirm's / the run's).
Names are compared after dropping GCC's clone suffixes (.part.N, .constprop.N, .isra.N, .cold).
"""
import argparse
import json
import os
import re
import sys

SUFFIX = re.compile(r"\.(part|constprop|isra|cold|lto_priv|localalias)(\.\d+)*")


def norm(name):
    return SUFFIX.sub("", name or "")


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def explanation(ans):
    """The explanation object (the first variant's when the answer has variants)."""
    if ans is None:
        return None
    if isinstance(ans.get("variants"), list) and ans["variants"]:
        return ans["variants"][0]
    return ans


def finding_functions(exp):
    """The findings' functions in the order the answer gives them: the differential
    profile's findings (`leads.leads[]`, where the cost lands) first, then the placement
    screen's (`findings[]`)."""
    out = [list(l.get("functions") or []) for l in (exp.get("leads") or {}).get("leads") or []]
    for f in exp.get("findings") or []:
        fns = f.get("functions")
        if not fns and isinstance(f.get("members"), list):
            culprits = exp.get("culprits") or []
            fns = [culprits[i].get("function") for i in f["members"]
                   if isinstance(i, int) and i < len(culprits)]
        if not fns and f.get("function"):
            fns = [f["function"]]
        out.append([x if isinstance(x, str) else (x or {}).get("function") for x in fns or []])
    return out


def movers(exp):
    m = exp.get("movers")
    if not isinstance(m, list):
        # explain's differential profile (issue 49): `differential.movers[]`, largest share first.
        m = (exp.get("differential") or {}).get("movers")
    if not isinstance(m, list):
        return None
    return [x.get("function") if isinstance(x, dict) else x for x in m]


def confirmed(exp):
    """Confirmed culprits' functions (with the functions moved with them)."""
    out = []
    for c in exp.get("culprits") or []:
        conf = c.get("confirmation") or {}
        if conf.get("confirmed") is True:
            out.append((c.get("function"), conf.get("moved_with") or []))
    return out


def hits(names, truth):
    return any(norm(n) in truth for n in names if n)


def fmt_ratio(a, b):
    return "–" if a is None or not b else f"{a / b:.2f}"


def short(names, n=3):
    names = [x for x in names if x]
    s = ", ".join(names[:n])
    return s + (f" +{len(names) - n}" if len(names) > n else "")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("--answer", default=None,
                    help="the answer file scored for top-1/top-3 (default answer.json)")
    ap.add_argument("--cases", action="store_true",
                    help="also print the cases: command, model and the truth's moves")
    a = ap.parse_args()
    cases = sorted(d for d in os.listdir(a.results)
                   if os.path.isfile(os.path.join(a.results, d, "truth.json")))
    rows = []
    tot = dict(flips=0, nulls=0, top1=0, top3=0, mv1=0, mv3=0, mv_n=0, conf_t=0, conf_f=0,
               null_findings=0, null_conf=0, ba1=0, ba3=0, bb1=0, answered=0,
               run_s=0.0, explain_s=0.0, confirm_s=0.0, confirm_run_s=0.0,
               fixes=0, fixes_slow=0, fixes_proven=0, fixes_failed=0)
    for c in cases:
        d = os.path.join(a.results, c)
        truth = load(os.path.join(d, "truth.json"))
        timing = load(os.path.join(d, "timing.json")) or {}
        ans = explanation(load(os.path.join(d, a.answer or "answer.json")))
        conf_ans = explanation(load(os.path.join(d, "answer-confirm.json")))
        T = {norm(x) for x in truth["truth"]}
        flip = truth["flip"]
        row = {"case": c, "program": truth["program"], "i1": truth["i1"],
               "fastest": truth["fastest"]["i1_misses"], "slowest": truth["slowest"]["i1_misses"],
               "kind": "flip" if flip else "null", "truth": short(truth["truth"], 5)}
        if ans is None:
            row.update(verdict="(no answer)")
            rows.append(row)
            tot["flips" if flip else "nulls"] += 1
            continue
        tot["answered"] += 1
        ff = finding_functions(ans)
        mv = movers(ans)
        conf = confirmed(conf_ans if conf_ans is not None else ans)
        hot = sorted((h for h in ans.get("hot") or [] if h.get("i1_misses") is not None),
                     key=lambda h: -h["i1_misses"])
        base_a = [h["name"] for h in hot[:3]]
        base_b = [x["function"] for x in truth.get("most_misses_slowest", [])[:1]]
        row["verdict"] = ans.get("verdict", "?")
        row["first"] = short(ff[0]) if ff else "–"
        row["findings"] = len(ff)
        for cu in (conf_ans if conf_ans is not None else ans).get("culprits") or []:
            fix = cu.get("suggestion")
            if fix and (cu.get("confirmation") or {}).get("confirmed") is True:
                proof = (cu.get("confirmation") or {}).get("fix_proof")
                tot["fixes"] += 1
                tot["fixes_slow"] += "is then that of the binaries with the higher means" in fix
                tot["fixes_proven"] += bool(proof) and proof.get("holds") is True
                tot["fixes_failed"] += bool(proof) and proof.get("holds") is False
        ct = sum(1 for f, w in conf if norm(f) in T)
        cf = len(conf) - ct
        row["conf"] = f"{ct}/{cf}" if (conf_ans is not None or conf) else "–"
        if flip:
            tot["flips"] += 1
            t1 = bool(ff) and hits(ff[0], T)
            t3 = any(hits(f, T) for f in ff[:3])
            row["top1"], row["top3"] = ("✓" if t1 else "✗"), ("✓" if t3 else "✗")
            tot["top1"] += t1
            tot["top3"] += t3
            if mv is not None:
                tot["mv_n"] += 1
                m1, m3 = hits(mv[:1], T), hits(mv[:3], T)
                tot["mv1"] += m1
                tot["mv3"] += m3
                row["movers"] = ("✓" if m1 else "✗") + "/" + ("✓" if m3 else "✗")
            a1, a3, b1 = hits(base_a[:1], T), hits(base_a[:3], T), hits(base_b, T)
            row["base_a"] = f"{'✓' if a1 else '✗'}/{'✓' if a3 else '✗'} ({base_a[0] if base_a else '–'})"
            row["base_b"] = f"{'✓' if b1 else '✗'} ({base_b[0] if base_b else '–'})"
            tot["ba1"] += a1
            tot["ba3"] += a3
            tot["bb1"] += b1
            tot["conf_t"] += ct
            tot["conf_f"] += cf
        else:
            tot["nulls"] += 1
            tot["null_findings"] += len(ff)
            tot["null_conf"] += len(conf)
            row["top1"] = row["top3"] = "(null)"
            row["base_a"] = row["base_b"] = "–"
        rs, es, cs = timing.get("run_s"), timing.get("explain_s"), timing.get("confirm_s")
        row["cost"] = fmt_ratio(es, rs)
        row["ccost"] = fmt_ratio(cs, rs)
        row["times"] = f"{rs:.0f} / {es:.0f}" + (f" / {cs:.0f}" if cs else "") if rs and es else "–"
        if rs and es:
            tot["run_s"] += rs
            tot["explain_s"] += es
        if rs and cs:
            tot["confirm_s"] += cs
            tot["confirm_run_s"] += rs
        rows.append(row)

    has_mv = tot["mv_n"] > 0
    head = ["case", "I1", "fastest → slowest I1 misses", "kind", "truth", "verdict",
            "first finding", "top-1", "top-3"]
    if has_mv:
        head.append("movers top-1/3")
    head += ["confirmed true/false", "baseline A top-1/3 (fn)", "baseline B top-1 (fn)",
             "run / explain[ / confirm] s", "explain ÷ run", "confirm ÷ run"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        cells = [r["case"], r["i1"], f"{r['fastest']:,.0f} → {r['slowest']:,.0f} "
                 f"(×{r['slowest'] / r['fastest']:.2f})" if r["fastest"] else "–",
                 r["kind"], r["truth"], r.get("verdict", "–"),
                 r.get("first", "–") + (f" ({r['findings']} findings)" if r.get("findings") else ""),
                 r.get("top1", "–"), r.get("top3", "–")]
        if has_mv:
            cells.append(r.get("movers", "–"))
        cells += [r.get("conf", "–"), r.get("base_a", "–"), r.get("base_b", "–"),
                  r.get("times", "–"), r.get("cost", "–"), r.get("ccost", "–")]
        print("| " + " | ".join(str(x) for x in cells) + " |")
    n = tot["flips"]
    cells = ["**total**", "", f"{n} flips, {tot['nulls']} nulls", "", "", "", "",
             f"**{tot['top1']}/{n}**", f"**{tot['top3']}/{n}**"]
    if has_mv:
        cells.append(f"{tot['mv1']}/{tot['mv_n']} / {tot['mv3']}/{tot['mv_n']}")
    cells += [f"{tot['conf_t']}/{tot['conf_f']} (nulls: {tot['null_conf']})",
              f"{tot['ba1']}/{n} / {tot['ba3']}/{n}", f"{tot['bb1']}/{n}",
              f"{tot['run_s']:.0f} / {tot['explain_s']:.0f}"
              + (f" / {tot['confirm_s']:.0f}" if tot["confirm_s"] else ""),
              fmt_ratio(tot["explain_s"], tot["run_s"]),
              fmt_ratio(tot["confirm_s"] or None, tot["confirm_run_s"])]
    print("| " + " | ".join(cells) + " |")
    print()
    print(f"Flips: {n} (top-1 {tot['top1']}, top-3 {tot['top3']}; baseline A top-1 "
          f"{tot['ba1']}, top-3 {tot['ba3']}; baseline B top-1 {tot['bb1']}). "
          f"Nulls: {tot['nulls']}, findings on them {tot['null_findings']}, confirmed on them "
          f"{tot['null_conf']}. Confirmations on flips: {tot['conf_t']} in the truth, "
          f"{tot['conf_f']} not (false). Fixes of confirmed culprits: {tot['fixes']}: proven "
          f"{tot['fixes_proven']}, not holding {tot['fixes_failed']} (not printed as fixes), "
          f"unproven {tot['fixes'] - tot['fixes_proven'] - tot['fixes_failed']}; "
          f"{tot['fixes_slow']} say the fix copies the binaries with the higher means.")

    if a.cases:
        print()
        print("| case | command | I1 | fastest → slowest (binaries) | kind | truth: fast → slow "
              "I1 misses (mean of 3 and 3) | share of Σ|move| | unnamed move |")
        print("|---|---|---|---|---|---|---|---|")
        for c in cases:
            d = os.path.join(a.results, c)
            t = load(os.path.join(d, "truth.json"))
            tm = load(os.path.join(d, "timing.json")) or {}
            mv = {m["function"]: m for m in t["moves"]}
            tr = "; ".join(f"{f} {mv[f]['fast']:,.0f} → {mv[f]['slow']:,.0f}" for f in t["truth"]
                           if f in mv)
            cmd = " ".join(os.path.basename(x) if x.startswith("/") else x
                           for x in tm.get("command", [t["program"]]))
            share = t.get("truth_share")
            print(f"| {c} | `{cmd}` | {t['i1']} | {t['fastest']['i1_misses']:,.0f} "
                  f"({t['fastest']['binary']}) → {t['slowest']['i1_misses']:,.0f} "
                  f"({t['slowest']['binary']}) | {'flip' if t['flip'] else 'null'} | {tr} | "
                  f"{'–' if share is None else f'{share:.0%}'} | {t.get('unnamed_move', 0):,.0f} |")


if __name__ == "__main__":
    sys.exit(main())
