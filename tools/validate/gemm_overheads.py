#!/usr/bin/python3
"""The GEMM model's fixed costs derived from published measurements (docs/training.md).

sgai's GEMM model (core/kernels/gemm.hpp): output tiles of 256x128, 128x256 or 128x128 spread over
the SMs in waves, the inner dimension split in up to 4 slices when that is faster (parallel split-K:
FP32 partials, a second kernel sums them: m n (8 s + 2) bytes at the HBM bandwidth); each wave costs
a fixed time plus its tiles' FLOPs at the SM's tile rate; each kernel a fixed time; the tile rate
is set so that the model gives a measured best GEMM. XLA's
measurements are short runs at the boost clock, so the fit anchors the tile rate on the burst
figure measured the same way (ml-engineering's maximum achievable matmul, H100: 80.3% of 989.4
TFLOP/s at 2048x2048x13312). The two fixed costs are found here by a grid search (0.125 us steps)
that minimizes the RMS of the log error over OpenXLA's measured H100 BF16 GEMMs of training size
(platforms/catalogues/measurements: 2 b m n k >= 4 GFLOP and k >= 1024), and printed with each
shape's error against the model without them. The catalogue's H100 and H200 `matmul/overheads` are
these values; their BF16 tile rate is then anchored on the sustained figure (MSMF) instead.
`--gpu b200` fits the same way to OpenXLA's measured B200 (sm_100) BF16 GEMMs
(platforms/catalogues/measurements/xla_matmul_sm100_bf16.csv), the tile rate anchored on the B200's
burst figure (ml-engineering: 77.6% of 2,250 TFLOP/s at 1792x16128x3072). The catalogue does not
take them: their wave cost leaves the GB200's measured FP8 burst figure shorter than the fixed
costs alone (docs/platforms.md).
Usage: tools/validate/gemm_overheads.py [--gpu h100|b200]
"""
import csv
import math
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# per GPU: SMs, dense BF16 peak, HBM bandwidth, the streaming fraction of it (the catalogue's), the
# burst best measured the way XLA measures (m, n, k, fraction of the peak), OpenXLA's table
GPUS = {
    "h100": (132, 989.4e12, 3.35e12, 0.867, (2048, 2048, 13312, 0.803), "xla_matmul_sm90_bf16.csv"),
    "b200": (148, 2250e12, 8e12, 0.75, (1792, 16128, 3072, 0.776), "xla_matmul_sm100_bf16.csv"),
}
GPU = "h100"
if "--gpu" in sys.argv:
    i = sys.argv.index("--gpu")
    GPU = sys.argv[i + 1] if i + 1 < len(sys.argv) else ""
    if GPU not in GPUS:
        print(f"gemm_overheads.py: --gpu {GPU!r}: not one of {', '.join(GPUS)}", file=sys.stderr)
        sys.exit(2)
SMS, PEAK, HBM, STREAM, MEASURED_BEST, TABLE = GPUS[GPU]
MEM = HBM * STREAM
TILES = [(256, 128), (128, 256), (128, 128)]
SPLITS = (1, 2, 3, 4)


def waves(b, m, n, tm, tn):
    return math.ceil(b * math.ceil(m / tm) * math.ceil(n / tn) / SMS)


def choices(b, m, n, k, tk, tw, splits):
    """(fixed time, waves x one tile's FLOPs) of each tile shape and split, as gemm.cpp weighs them."""
    for tm, tn in TILES:
        for s in splits:
            w = waves(b * s, m, n, tm, tn)
            fixed = tk + w * tw + ((tk + b * m * n * (8 * s + 2) / HBM) if s > 1 else 0)
            yield fixed, w * 2 * tm * tn * math.ceil(k / s)


def tile_rate(tk, tw, splits=SPLITS):
    """The per-SM rate that makes the model give the measured best GEMM (as tile_fraction_from)."""
    m, n, k, f = MEASURED_BEST
    t = 2 * m * n * k / (f * PEAK)
    rates = [work / (t - fixed) for fixed, work in choices(1, m, n, k, tk, tw, splits) if t > fixed]
    return min(min(rates), PEAK / SMS)


def model(b, m, n, k, tk, tw, splits=SPLITS):
    r = tile_rate(tk, tw, splits)
    t = min(fixed + work / r for fixed, work in choices(b, m, n, k, tk, tw, splits))
    return 2 * b * m * n * k / max(t, 2 * b * (m * k + k * n + m * n) / MEM) / 1e12


def main():
    rows = [tuple(map(float, (r["batch"], r["m"], r["n"], r["k"], r["tflops"]))) for r in
            csv.DictReader(open(os.path.join(ROOT, "platforms/catalogues/measurements", TABLE)))]
    train = [r for r in rows if 2 * r[0] * r[1] * r[2] * r[3] >= 4e9 and r[3] >= 1024]

    def rms(tk, tw, pts):
        e = [math.log(model(*p[:4], tk, tw) / p[4]) for p in pts]
        return math.sqrt(sum(x * x for x in e) / len(e)), max(abs(x) for x in e)

    best = min(((rms(i * 0.125e-6, j * 0.125e-6, train), i * 0.125e-6, j * 0.125e-6)
                for i in range(0, 48) for j in range(0, 48)), key=lambda x: x[0][0])
    (err, worst), tk, tw = best
    print(f"{len(train)} of {len(rows)} measured shapes of training size; fixed costs: kernel {tk * 1e6:.3f} us, "
          f"wave {tw * 1e6:.3f} us; tile rate {tile_rate(tk, tw) * SMS / PEAK:.4f} of the peak")
    e0, w0 = rms(0, 0, train)
    print(f"RMS log error {err:.3f} (worst {worst:.3f}); without them {e0:.3f} (worst {w0:.3f}); over all "
          f"{len(rows)} shapes {rms(tk, tw, rows)[0]:.3f} against {rms(0, 0, rows)[0]:.3f}")

    def rms1(tk, tw, pts):
        e = [math.log(model(*p[:4], tk, tw, (1,)) / p[4]) for p in pts]
        return math.sqrt(sum(x * x for x in e) / len(e)), max(abs(x) for x in e)

    (e1, w1), tk1, tw1 = min(((rms1(i * 0.125e-6, j * 0.125e-6, train), i * 0.125e-6, j * 0.125e-6)
                              for i in range(0, 48) for j in range(0, 48)), key=lambda x: x[0][0])
    print(f"without split-K, fitted the same way: kernel {tk1 * 1e6:.3f} us, wave {tw1 * 1e6:.3f} us, RMS log error "
          f"{e1:.3f} (worst {w1:.3f}), over all {len(rows)} shapes {rms1(tk1, tw1, rows)[0]:.3f}")
    print(f"{'b':>2} {'m':>5} {'n':>5} {'k':>5} {'measured':>9} {'model':>7} {'error':>7} {'without':>8}")
    for p in train:
        print(f"{p[0]:2.0f} {p[1]:5.0f} {p[2]:5.0f} {p[3]:5.0f} {p[4]:9.1f} {model(*p[:4], tk, tw):7.1f} "
              f"{100 * (model(*p[:4], tk, tw) / p[4] - 1):+6.1f}% {100 * (model(*p[:4], 0, 0) / p[4] - 1):+7.1f}%")


main()
