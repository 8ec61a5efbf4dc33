"""``python3 -m vllm.entrypoints.openai.api_server``: the test image's vLLM."""
from sparktest.programs import main

if __name__ == "__main__":
    main("vllm.api_server")
