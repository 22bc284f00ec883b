#!/usr/bin/env python3
"""Writes the fixtures of tests/host/test_fleet.cpp: the part reports that fake_worker.sh hands
back in place of real --devices workers. Synthetic, not measured: an 8-row plan (cuBLAS and
hgemm_tn at four shapes, TN f16/f32) as

  shard_0.json, shard_1.json          the two halves of the plan (--shard 0/2, 1/2), complete
  shard_1_partial.json                shard 1 after its first row (summary in progress)
  shard_1_interrupted.json            shard 1 stopped by SIGINT after two rows
  replica_0.json ... replica_2.json   the whole plan on three GPUs (--mode replicate); replica 2
                                      is 8% slower than the others on row 2 and within 1% elsewhere
  replica_1_partial.json              replica 1 after three rows

Rows take their form from tests/data/sample_report.json's first row. Rerun after a change of the
report schema: python3 tests/data/fleet/make_fixtures.py
"""
import copy
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
TEMPLATE = json.load(open(os.path.join(HERE, '..', 'sample_report.json')))
ROW = TEMPLATE['results'][0]
PLAN_HASH = 'f1ee7c0ffee00001'
SHAPES = [(4096, 4096, 4096), (1024, 1024, 1024), (2048, 2048, 2048), (512, 512, 512)]
# Shard of each group, as a 2-way deal might give it (merge reads it from the metadata only).
GROUP_SHARD = [0, 1, 0, 1]
BASE_MS = {('cublas', 0): 0.200, ('hgemm_tn', 0): 0.250, ('cublas', 1): 0.0070,
           ('hgemm_tn', 1): 0.0120, ('cublas', 2): 0.030, ('hgemm_tn', 2): 0.040,
           ('cublas', 3): 0.0043, ('hgemm_tn', 3): 0.0071}


def rows():
    out = []
    for g, (m, n, k) in enumerate(SHAPES):
        for kernel in ('cublas', 'hgemm_tn'):
            out.append((len(out) + 1, g, kernel, m, n, k))
    return out


def label(kernel, m, n, k):
    return f'{kernel} {m}x{n}x{k} tn f16/f32'


def row(index, kernel, m, n, k, median):
    r = copy.deepcopy(ROW)
    r.update(index=index, run='fleet', kernel=kernel,
             provider='cublas' if kernel == 'cublas' else 'gemmbench',
             family='cublas' if kernel == 'cublas' else 'hgemm', m=m, n=n, k=k, layout='tn',
             dtype='f16', accum='f32', status='ok', reason='')
    r['time_ms'] = {'median': median, 'min': median * 0.99, 'p10': median * 0.995,
                    'p90': median * 1.005, 'mean': median, 'stdev': median * 0.003}
    r['samples'] = 20
    r['tflops'] = 2.0 * m * n * k / (median * 1e-3) / 1e12
    return r


def metadata(index, count, mode, device):
    md = copy.deepcopy(TEMPLATE['metadata'])
    md.pop('description', None)
    md.update(plan_hash=PLAN_HASH, plan_rows=len(rows()), seed=20261122, host='fleet-test',
              mode=mode, command_line='gemmbench --kernel hgemm_tn (fixture)')
    md['device'] = dict(md['device'], index=device, pci_bus_id=f'00000000:{0x19 + device:02X}:00.0',
                        uuid=f'GPU-00000000-0000-0000-0000-00000000000{device}',
                        serial=f'165202000000{device}')
    if mode == 'replicate':
        md['shard'] = {'index': 0, 'count': 1}
        md['replica'] = {'index': index, 'count': count}
    else:
        md['shard'] = {'index': index, 'count': count, 'planned': [
            {'index': i, 'case': label(kern, m, n, k)}
            for i, g, kern, m, n, k in rows() if GROUP_SHARD[g] == index]}
    return md


def summary(planned, written, interrupted=False, in_progress=False):
    if in_progress:
        return {'complete': False, 'in_progress': True}
    return {'rows_planned': planned, 'rows_written': written, 'ok': written, 'failed': 0,
            'skipped': 0, 'errors': 0, 'aborted': False, 'abort_reason': '',
            'interrupted': interrupted, 'interrupted_by': 'SIGINT' if interrupted else '',
            'complete': not interrupted and planned == written}


def write(name, doc):
    with open(os.path.join(HERE, name), 'w') as f:
        json.dump(doc, f, indent=1)
        f.write('\n')


def main():
    for s in (0, 1):
        mine = [(i, kern, m, n, k) for i, g, kern, m, n, k in rows() if GROUP_SHARD[g] == s]
        results = [row(i, kern, m, n, k, BASE_MS[(kern, SHAPES.index((m, n, k)))])
                   for i, kern, m, n, k in mine]
        md = metadata(s, 2, 'shard', s)
        write(f'shard_{s}.json', {'metadata': md, 'results': results,
                                  'summary': summary(len(mine), len(mine))})
        if s == 1:
            write('shard_1_partial.json', {'metadata': md, 'results': results[:1],
                                           'summary': summary(len(mine), 1, in_progress=True)})
            write('shard_1_interrupted.json', {'metadata': md, 'results': results[:2],
                                               'summary': summary(len(mine), 2, interrupted=True)})
    # Each replica's small, fixed deviation from the base times, and replica 2's slow row 2.
    wobble = [1.000, 1.006, 0.996]
    for r in range(3):
        results = []
        for i, g, kern, m, n, k in rows():
            t = BASE_MS[(kern, g)] * wobble[r]
            if r == 2 and i == 2:
                t = BASE_MS[(kern, g)] * 1.08
            results.append(row(i, kern, m, n, k, t))
        md = metadata(r, 3, 'replicate', r)
        write(f'replica_{r}.json', {'metadata': md, 'results': results,
                                    'summary': summary(len(results), len(results))})
        if r == 1:
            write('replica_1_partial.json', {'metadata': md, 'results': results[:3],
                                             'summary': summary(len(results), 3,
                                                                in_progress=True)})


if __name__ == '__main__':
    main()
