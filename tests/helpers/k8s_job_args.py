"""Reads a Kubernetes Job manifest as the API server would take it and prints, as one JSON
object, what pod INDEX of an Indexed Job would run: its command line with $(VAR) references
expanded from the container's env (the completion-index annotation resolved to INDEX), the
environment, and the Job's completions. Used by tests/tests/shards.rs.

usage: k8s_job_args.py MANIFEST INDEX
"""

import json
import re
import sys

import yaml


def fail(message):
    print(f"k8s_job_args.py: {message}", file=sys.stderr)
    sys.exit(1)


def main():
    path, index = sys.argv[1], sys.argv[2]
    with open(path, encoding="utf-8") as f:
        docs = [d for d in yaml.safe_load_all(f) if d]
    jobs = [d for d in docs if d.get("kind") == "Job"]
    if len(jobs) != 1:
        fail(f"{path}: expected one Job, found {len(jobs)}")
    job = jobs[0]
    if job.get("apiVersion") != "batch/v1":
        fail(f"{path}: apiVersion {job.get('apiVersion')!r}, not batch/v1")
    spec = job["spec"]
    if spec.get("completionMode") != "Indexed":
        fail(f"{path}: not an Indexed Job")
    containers = spec["template"]["spec"]["containers"]
    if len(containers) != 1:
        fail(f"{path}: expected one container")
    c = containers[0]
    env = {"JOB_COMPLETION_INDEX": index}
    annotation = "metadata.annotations['batch.kubernetes.io/job-completion-index']"
    for e in c.get("env", []):
        if "value" in e:
            env[e["name"]] = str(e["value"])
        elif e.get("valueFrom", {}).get("fieldRef", {}).get("fieldPath") == annotation:
            env[e["name"]] = index
        else:
            fail(f"{path}: env {e['name']} has a source this check does not know")

    def expand(s):
        return re.sub(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)", lambda m: env.get(m.group(1), m.group(0)), s)

    argv = [expand(str(a)) for a in c.get("command", []) + c.get("args", [])]
    print(json.dumps({"argv": argv, "env": env, "completions": spec["completions"],
                      "parallelism": spec.get("parallelism"), "volumes": spec["template"]["spec"].get("volumes", [])}))


main()
