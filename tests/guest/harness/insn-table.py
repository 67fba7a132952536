#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""insn-table.py CONSOLE_LOG PLUGIN_LOG [TABLE] - the instructions per
transfer of a guest run with the hf_insn TCG plugin (run-config.sh runs it
after a configuration with CFG_PLUGIN=insn).

Joins the legend hf_insn printed on the guest console ("# HF-INSN-LEGEND
label=L name=N path=P dir=D size=S spans=N desc=D irqs=I": N spans of
one transfer; D, I: the card's descriptors and interrupts per transfer)
with the plugin's lines in QEMU's log ("HF-INSN vcpu=V label=L
kernel_insns=K user_insns=U", one per span), in order: a legend line of
a label takes the next N lines of that label.  Writes the table (TABLE,
else stdout): per label its name, N, the kernel instructions per
transfer (mean: the sum of K / N; the minimum and the median over the
spans), the user instructions per transfer (mean), the kernel total and
the card's descriptors and interrupts per transfer.

Then result lines on stdout, which run-config.sh adds to the host's:
  PASS insn/counts: every label has its counts, sane
  FAIL insn/counts: a label without its N counts, a transfer span with
                    no kernel instructions, the empty span with some, or a
                    4 MiB transfer costing fewer kernel instructions (the
                    median) than the 4 KiB one of the same path and
                    direction
A run without any legend (the case skipped or did not get there) prints
nothing.  Exit status 0.
"""
import re
import sys


def kv(line):
    return dict(re.findall(r'(\w+)=(\S+)', line))


def main():
    console, plugin = sys.argv[1], sys.argv[2]
    table = sys.argv[3] if len(sys.argv) > 3 else None
    legend = []
    with open(console, errors='replace') as f:
        for line in f:
            line = line.replace('\r', '').rstrip('\n')
            if line.startswith('# HF-INSN-LEGEND '):
                legend.append(kv(line))
    if not legend:
        return 0
    counts = {}
    errors = []
    try:
        with open(plugin, errors='replace') as f:
            for line in f:
                if not line.startswith('HF-INSN '):
                    continue
                d = kv(line)
                if 'error' in d:
                    errors.append(line.strip())
                    continue
                counts.setdefault(d['label'], []).append(d)
    except OSError as e:
        print('FAIL insn/counts: no plugin log %s: %s' % (plugin, e.strerror))
        return 0
    rows, bad, used = [], [], {}
    for lg in legend:
        lab = lg['label']
        n = int(lg['spans'])
        k = used.get(lab, 0)
        c = counts.get(lab, [])[k:k + n]
        used[lab] = k + n
        if len(c) < n:
            bad.append('label %s (%s): %d of %d HF-INSN lines' %
                       (lab, lg['name'], len(c), n))
            continue
        kern = sorted(int(x['kernel_insns']) for x in c)
        user = sum(int(x['user_insns']) for x in c)
        rows.append(dict(lg, n=n, kern=kern, ktot=sum(kern),
                         kmean=sum(kern) / n, kmin=kern[0],
                         kmed=kern[n // 2] if n % 2 else
                         (kern[n // 2 - 1] + kern[n // 2]) / 2,
                         umean=user / n))
    out = ['%-5s %-13s %-7s %-4s %8s %5s %11s %9s %9s %9s %12s %7s %5s' %
           ('label', 'name', 'path', 'dir', 'size', 'spans', 'kernel/xfer',
            'min', 'median', 'user/xfer', 'kernel total', 'desc', 'irqs')]
    for r in rows:
        out.append('%-5s %-13s %-7s %-4s %8s %5d %11.0f %9d %9.0f %9.0f %12d %7s %5s' %
                   (r['label'], r['name'], r['path'], r['dir'], r['size'],
                    r['n'], r['kmean'], r['kmin'], r['kmed'], r['umean'],
                    r['ktot'], r.get('desc', '?'), r.get('irqs', '?')))
    text = '\n'.join(out) + '\n'
    if table:
        with open(table, 'w') as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    # sanity: transfers cost kernel instructions, the empty span none,
    # 4 MiB at least what 4 KiB costs on the same path and direction where
    # it makes the card run more descriptors (the CPU path: 1024 pages
    # pinned and mapped; the median: robust to the spans a timer tick or a
    # sleep made longer).  A GPU XFER of either size is one descriptor of a
    # built chain: what differs is only the wait, which in poll mode spins
    # for as long as the card takes, so no order holds there.
    def descs(r):
        try:
            return float(r.get('desc', '0'))
        except ValueError:
            return 0.0

    by = {}
    for r in rows:
        if r['name'] == 'empty':
            if r['ktot']:
                bad.append('the empty span counted %d kernel instructions'
                           % r['ktot'])
            continue
        if r['kmin'] <= 0:
            bad.append('%s: a span with no kernel instructions' % r['name'])
        if r['path'] in ('cpu', 'gpu'):
            by.setdefault((r['path'], r['dir']), []).append(r)
    for rs in by.values():
        rs.sort(key=lambda r: int(r['size']))
        for a, b in zip(rs, rs[1:]):
            if descs(b) > descs(a) and b['kmed'] < a['kmed']:
                bad.append('%s: a median of %.0f kernel instructions per '
                           'transfer, fewer than %s: %.0f' %
                           (b['name'], b['kmed'], a['name'], a['kmed']))
    bad += errors
    if bad:
        print('FAIL insn/counts: ' + '; '.join(bad)[:400])
    else:
        print('PASS insn/counts: %d spans counted%s' %
              (len(rows), ' (table: %s)' % table if table else ''))
    return 0


if __name__ == '__main__':
    sys.exit(main())
