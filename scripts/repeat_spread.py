#!/usr/bin/env python3
"""How far medians and ratios to cuBLAS move between same-day repeats of one command under
bench_results/h100 (the evidence for `gemmbench compare`'s default --threshold, docs/compare.md).

    python3 scripts/repeat_spread.py
"""
import itertools
import os
import statistics as st

from report_file import load_json

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Groups of reports written by one command line, minutes apart, on the same day and commit.
G=[["2026-11-22_hopper_5120_repeat1","2026-11-22_hopper_5120_repeat2","2026-11-22_hopper_5120_repeat3"],
 ["2026-11-22_sm90_defer_run1","2026-11-22_sm90_defer_run2","2026-11-22_sm90_defer_run3"],
 ["2026-11-22_sk_defer_5120_r1","2026-11-22_sk_defer_5120_r2"],
 ["2026-11-22_sk_defer_8192_r1","2026-11-22_sk_defer_8192_r2"],
 ["2026-11-22_ampere_after_mainloop_share_r1","2026-11-22_ampere_after_mainloop_share_r2"],
 ["2026-11-22_hopper_acceptance_deferred_run1","2026-11-22_hopper_acceptance_deferred_run2"],
 ["2026-11-24_persist_spread_5120_r1","2026-11-24_persist_spread_5120_r2"],
 ["2026-11-24_persist_variants_colsouter_r1","2026-11-24_persist_variants_colsouter_r2"],
 ["2026-11-24_movmatrix_ab_base_r1","2026-11-24_movmatrix_ab_base_r2","2026-11-24_movmatrix_ab_base_r3"],
 ["2026-11-24_movmatrix_ab_movm_r1","2026-11-24_movmatrix_ab_movm_r2","2026-11-24_movmatrix_ab_movm_r3"],
 ["2026-11-24_copy_step_5120_r1","2026-11-24_copy_step_5120_r2"],
 ["2026-11-24_halves_5120_r1","2026-11-24_halves_5120_r2"],
 ["2026-11-24_producer_5120_r1","2026-11-24_producer_5120_r2"],
]
def key(r): return (r['kernel'],r['m'],r['n'],r['k'],r['layout'],r['dtype'],r['accum'],r['alpha'],r['beta'],r['measure']['cache'],r['measure'].get('data','uniform'))
def load(f):
    p=os.path.join(ROOT, 'bench_results', 'h100', f + '.json')
    d=load_json(p + '.gz' if os.path.exists(p + '.gz') else p)  # committed reports are gzipped
    return {key(r):r for r in d['results'] if r['time_ms']}
med=[];rat=[];noise=[];cub=[]
for g in G:
    rs=[load(f) for f in g]
    for a,b in itertools.combinations(rs,2):
        for k in a:
            if k not in b: continue
            ra,rb=a[k],b[k]
            ma,mb=ra['time_ms']['median'],rb['time_ms']['median']
            d=100*(mb-ma)/ma
            if ra['provider']=='cublas': cub.append(abs(d))
            else: med.append(abs(d))
            if ra['ratio_to_cublas'] and rb['ratio_to_cublas']:
                rat.append(abs(100*(rb['ratio_to_cublas']-ra['ratio_to_cublas'])/ra['ratio_to_cublas']))
    for r in rs:
        for x in r.values():
            t=x['time_ms']; noise.append(100*(t['p90']-t['p10'])/t['median']/2)
def q(v,p): v=sorted(v); return v[min(len(v)-1,int(round(p/100*(len(v)-1))))]
for name,v in [("kernel median |change| %",med),("cublas median |change| %",cub),("ratio |change| %",rat),("half (p90-p10)/median %",noise)]:
    print(f"{name:28s} n={len(v):4d} median={st.median(v):.2f} p90={q(v,90):.2f} p95={q(v,95):.2f} max={max(v):.2f}")
