"""Independent referee for council's maximum-likelihood ratings: Bradley-Terry by choix.

Reads {"comparisons": [[wins of i over j, ...], ...]} on stdin, where draws count half a win for
each side, and prints the maximum-likelihood strengths (natural-log scale, mean 0) as a JSON list.
choix's iterative Luce spectral ranking converges to the maximum-likelihood estimate of the
Bradley-Terry model, which is Ordo's model with draws as half points.
"""

import json
import sys

import choix
import numpy as np


def main():
    data = json.load(sys.stdin)
    comp = np.array(data["comparisons"], dtype=float)
    params = choix.ilsr_pairwise_dense(comp, alpha=0.0, max_iter=100000, tol=1e-13)
    params = params - params.mean()
    json.dump([float(x) for x in params], sys.stdout)


if __name__ == "__main__":
    main()
