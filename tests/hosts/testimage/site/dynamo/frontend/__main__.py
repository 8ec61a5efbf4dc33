"""``python3 -m dynamo.frontend``: the test image's Dynamo frontend."""
from sparktest.programs import main

main("dynamo.frontend")
