#!/usr/bin/env bash
# The rules corpus: every Tests/RulesCorpus/*.cases.json holds verdicts recorded from the
# official Firestore emulator (Tests/RulesCorpus/record-verdicts.py); `hearth rules test`
# must reproduce each one. Needs no emulator: the verdicts are in the files.
set -euo pipefail
cd "$(dirname "$0")/../.."
swift build --product hearth
swift run --skip-build hearth rules test Tests/RulesCorpus/*.cases.json
