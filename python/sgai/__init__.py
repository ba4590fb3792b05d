"""sgai: simulate the machines that run HPC and AI work, on SimGrid (Python side).

sgai.rl: HDeepRM's learning environment on sgai's workload manager, in Gymnasium's API.
"""
