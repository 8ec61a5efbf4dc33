"""``python3 -m sglang.launch_server``: the test image's SGLang."""
from sparktest.programs import main

if __name__ == "__main__":
    main("sglang.launch_server")
