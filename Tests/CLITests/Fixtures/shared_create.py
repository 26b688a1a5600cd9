"""Creates one Assembly through SERVICE with STEPS (JSON) and, when given, NOTIFY_URL, signed by
the official SDK, and waits for nothing. Usage: shared_create.py SERVICE KEY SECRET STEPS_JSON [NOTIFY_URL]
Prints the creation's status (JSON)."""
import json
import sys

import shared_common

service, key, secret, steps = sys.argv[1:5]
notify_url = sys.argv[5] if len(sys.argv) > 5 else None
print(json.dumps(shared_common.create(shared_common.sdk(service, key, secret), json.loads(steps), notify_url=notify_url)), flush=True)
