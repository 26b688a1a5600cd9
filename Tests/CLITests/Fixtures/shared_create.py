"""Creates one Assembly through SERVICE with STEPS (JSON), signed by the official SDK, and waits
for nothing. Usage: shared_create.py SERVICE KEY SECRET STEPS_JSON [--notify URL] [--tus COUNT]
(`--tus`: the tus uploads it waits for). Prints the creation's status (JSON)."""
import argparse
import json

import shared_common

parser = argparse.ArgumentParser()
parser.add_argument("service")
parser.add_argument("key")
parser.add_argument("secret")
parser.add_argument("steps")
parser.add_argument("--notify")
parser.add_argument("--tus", type=int, default=0)
options = parser.parse_args()
transloadit = shared_common.sdk(options.service, options.key, options.secret)
print(json.dumps(shared_common.create(transloadit, json.loads(options.steps), expected_tus=options.tus, notify_url=options.notify)), flush=True)
