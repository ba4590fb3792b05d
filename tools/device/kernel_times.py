#!/usr/bin/env python3
"""Kernel times measured on a GPU, for sgai's kernel model (docs/validation.md, "LLM training").

sgai prices a training step's kernels from published figures (the catalogue): GEMMs at ml-engineering's
sustained matmul rate through its tile-and-wave model, attention at the FlashAttention-3 paper's rates,
streaming kernels at a measured copy rate. On the published tables its predictions are 20-40% fast
on every GPU generation. This script measures, on the GPU it runs on, what those figures stand for,
so that the model can be checked kernel by kernel. It needs PyTorch with CUDA (nothing else), runs
in about 6 minutes, and writes into OUT ($OUT, or ./kernel-times):

- gemm.csv: m, n, k, burst and sustained TFLOP/s of bf16 torch.matmul. Burst is the mean of 20
  products timed right after an idle pause (the boost clock). Sustained is the same, timed after
  15 s of back-to-back products (the clock the power limit holds). The shapes are those of the
  Megatron-Core table's layers at micro-batch 1 and sequence 4,096.
- attention.csv: PyTorch's scaled-dot-product attention per backend (cuDNN, flash). Batch x
  sequence is 16k tokens, as FlashAttention-3's benchmarks. Head dim 128, 16 heads, causal and
  not. Forward and backward TFLOP/s are counted as FlashAttention counts them.
- stream.csv: the device-to-device copy rate, and a LayerNorm's and a GeLU's, in bytes moved.
- layer.csv: a GPT layer (pre-norm; QKV, attention, projection, dropout-add, FC1, GeLU, FC2,
  dropout-add; bf16; dropout 0.1) forward and backward, in ms per micro-batch. Layers of 2,048 and
  4,096 hidden at sequence 4,096 and micro-batch 1, TP 1. Compare with `sgai train predict`'s
  "A layer, one micro-batch" line on an H100 or H200 platform.
- clocks.csv: the SM clock and power every 0.5 s (nvidia-smi), while the script runs.
- trace_layer_2048.json: a Kineto trace (torch.profiler) of 3 steps of the 2,048-wide layer,
  readable by `sgai whatif` and ui.perfetto.dev.

Usage: python3 tools/device/kernel_times.py [--out DIR] [--quick]
(--quick: shorter sustained phases and fewer shapes, for a first try.)
"""
import argparse
import csv
import os
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

BF16 = torch.bfloat16


def timed(fn, reps):
    """Mean seconds of fn() over reps runs, by CUDA events."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(reps):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / 1e3 / reps


def gemm_shapes(quick):
    """Megatron-Core table layers (TP 1, micro-batch 1, sequence 4,096): QKV, projection, FC1, FC2
    forward, and a data and a weight gradient, for hidden 2,048 and 4,096, plus the catalogue's
    reference shapes (ml-engineering's MSMF and MAMF best shapes)."""
    out = [(1536, 2816, 6144), (2048, 2048, 13312), (8192, 8192, 8192)]
    for h in (2048, 4096) if not quick else (2048,):
        m = 4096
        out += [(m, 3 * h, h), (m, h, h), (m, 4 * h, h), (m, h, 4 * h), (m, h, 3 * h), (h, 4 * h, m)]
    return out


def gemm(out_dir, quick):
    rows = []
    sustain_s = 5 if quick else 15
    for m, n, k in gemm_shapes(quick):
        a = torch.randn(m, k, device="cuda", dtype=BF16)
        b = torch.randn(k, n, device="cuda", dtype=BF16)
        flops = 2.0 * m * n * k
        for _ in range(3):
            a @ b
        torch.cuda.synchronize()
        time.sleep(2)  # idle: the clock goes back up
        burst = flops / timed(lambda: a @ b, 20) / 1e12
        deadline = time.time() + sustain_s
        while time.time() < deadline:
            for _ in range(50):
                a @ b
            torch.cuda.synchronize()
        sustained = flops / timed(lambda: a @ b, 20) / 1e12
        rows.append((m, n, k, round(burst, 1), round(sustained, 1)))
        print("gemm %5d x %5d x %5d: burst %6.1f, sustained %6.1f TFLOP/s" % rows[-1], flush=True)
    with open(os.path.join(out_dir, "gemm.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["m", "n", "k", "burst_tflops", "sustained_tflops"])
        w.writerows(rows)


def attention(out_dir, quick):
    from torch.nn.attention import SDPBackend, sdpa_kernel

    rows = []
    heads, d = 16, 128
    for backend_name, backend in (("cudnn", SDPBackend.CUDNN_ATTENTION), ("flash", SDPBackend.FLASH_ATTENTION)):
        for seq in (1024, 2048, 4096, 8192) if not quick else (2048, 4096):
            batch = max(1, 16384 // seq)
            for causal in (False, True):
                q, k, v = (torch.randn(batch, heads, seq, d, device="cuda", dtype=BF16, requires_grad=True)
                           for _ in range(3))
                fwd_flops = 4.0 * batch * heads * seq * seq * d / (2 if causal else 1)
                try:
                    with sdpa_kernel(backend):
                        o = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                        g = torch.randn_like(o)
                        fwd = timed(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal), 20)

                        def both():
                            out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                            out.backward(g)
                        total = timed(both, 10)
                except RuntimeError as e:  # a backend that does not take this case
                    print("attention %s %d %s: %s" % (backend_name, seq, causal, str(e).splitlines()[0]), flush=True)
                    continue
                bwd = max(total - fwd, 1e-9)
                rows.append((backend_name, seq, batch, heads, d, int(causal), round(fwd_flops / fwd / 1e12, 1),
                             round(2.5 * fwd_flops / bwd / 1e12, 1)))
                print("attention %s seq %5d causal %d: forward %6.1f, backward %6.1f TFLOP/s" %
                      (backend_name, seq, causal, rows[-1][6], rows[-1][7]), flush=True)
    with open(os.path.join(out_dir, "attention.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["backend", "seq", "batch", "heads", "head_dim", "causal", "forward_tflops", "backward_tflops"])
        w.writerows(rows)


def stream(out_dir):
    n = 1 << 30  # 1 Gi elements of bf16: 2 GiB, many times the L2
    x = torch.randn(n, device="cuda", dtype=BF16)
    y = torch.empty_like(x)
    rows = [("copy", 4.0 * n / timed(lambda: y.copy_(x), 20) / 1e9)]
    h = 4096
    xs = x.view(-1, h)
    ln = torch.nn.LayerNorm(h, device="cuda", dtype=BF16)
    rows.append(("layernorm", 4.0 * n / timed(lambda: ln(xs), 20) / 1e9))
    rows.append(("gelu", 4.0 * n / timed(lambda: F.gelu(x), 20) / 1e9))
    for name, gbps in rows:
        print("stream %-9s %7.0f GB/s" % (name, gbps), flush=True)
    with open(os.path.join(out_dir, "stream.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["kernel", "GBps"])
        w.writerows((name, round(gbps)) for name, gbps in rows)


class Layer(torch.nn.Module):
    """A GPT layer as Megatron-LM builds it at TP 1 (pre-norm, biases, GeLU, dropout 0.1)."""

    def __init__(self, h, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = torch.nn.LayerNorm(h)
        self.qkv = torch.nn.Linear(h, 3 * h)
        self.proj = torch.nn.Linear(h, h)
        self.ln2 = torch.nn.LayerNorm(h)
        self.fc1 = torch.nn.Linear(h, 4 * h)
        self.fc2 = torch.nn.Linear(4 * h, h)

    def forward(self, x):  # x: [s, b, h]
        s, b, h = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(s, b, 3, self.heads, h // self.heads).permute(2, 1, 3, 0, 4)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True, dropout_p=0.1)
        a = a.permute(2, 0, 1, 3).reshape(s, b, h)
        x = x + F.dropout(self.proj(a), 0.1)
        return x + F.dropout(self.fc2(F.gelu(self.fc1(self.ln2(x)))), 0.1)


def layers(out_dir, quick):
    rows = []
    for h, heads in ((2048, 16), (4096, 32)) if not quick else ((2048, 16),):
        seq, mbs = 4096, 1
        layer = Layer(h, heads).cuda().to(BF16)
        x = torch.randn(seq, mbs, h, device="cuda", dtype=BF16, requires_grad=True)
        g = torch.randn(seq, mbs, h, device="cuda", dtype=BF16)
        for _ in range(5):
            layer(x).backward(g)
        fwd = timed(lambda: layer(x), 20)

        def step():
            layer(x).backward(g)
        total = timed(step, 20)
        rows.append((h, heads, 4 * h, seq, mbs, round(fwd * 1e3, 3), round((total - fwd) * 1e3, 3)))
        print("layer h %d: forward %.3f ms, backward %.3f ms" % (h, rows[-1][5], rows[-1][6]), flush=True)
        if h == 2048:
            from torch.profiler import ProfilerActivity, profile
            with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as p:
                for _ in range(3):
                    step()
                torch.cuda.synchronize()
            p.export_chrome_trace(os.path.join(out_dir, "trace_layer_2048.json"))
    with open(os.path.join(out_dir, "layer.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["hidden", "heads", "ffn", "seq", "micro_batch", "forward_ms", "backward_ms"])
        w.writerows(rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.environ.get("OUT", "kernel-times"))
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    if not torch.cuda.is_available():
        sys.exit("kernel_times.py: no CUDA device")
    os.makedirs(a.out, exist_ok=True)
    print("device: %s, %d SMs, torch %s" % (torch.cuda.get_device_name(), torch.cuda.get_device_properties(0)
                                            .multi_processor_count, torch.__version__), flush=True)
    clocks = None
    try:
        clocks = subprocess.Popen(["nvidia-smi", "--query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu",
                                   "--format=csv", "-lms", "500"], stdout=open(os.path.join(a.out, "clocks.csv"), "w"),
                                  stderr=subprocess.DEVNULL)
    except OSError:
        print("no nvidia-smi: no clocks.csv", flush=True)
    try:
        stream(a.out)
        attention(a.out, a.quick)
        layers(a.out, a.quick)
        gemm(a.out, a.quick)
    finally:
        if clocks:
            clocks.terminate()


if __name__ == "__main__":
    main()
