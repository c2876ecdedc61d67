#!/usr/bin/env bash
# The documented apps' security rules: every Rules/<app>.cases.json (allow and deny cases
# for each rule, on the app's Seeds/<app>/documents.json) must pass `hearth rules test`.
set -euo pipefail
cd "$(dirname "$0")/../.."
swift build --product hearth
.build/debug/hearth rules test Rules/*.cases.json
