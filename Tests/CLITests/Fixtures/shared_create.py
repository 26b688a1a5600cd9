"""Creates one Assembly through SERVICE with STEPS (JSON), signed by the official SDK, and waits
for nothing. Usage: shared_create.py SERVICE KEY SECRET STEPS_JSON
Prints the creation's status (JSON)."""
import json
import sys

import shared_common

service, key, secret, steps = sys.argv[1:5]
print(json.dumps(shared_common.create(shared_common.sdk(service, key, secret), json.loads(steps))), flush=True)
