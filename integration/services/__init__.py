"""Every state change of the shop connection, one module per concern: `integrations` (create, change),
`access` (keys, signing secrets, scopes, origins), `sync` (one object from the shop), `imports` (JSONL in bulk),
`webhooks` (events out), `results` (the shop executes money requests and reports back) and `sessions` (customers
arrive signed in by their shop)."""
