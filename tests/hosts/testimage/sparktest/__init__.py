"""What runs inside the test image: look-alikes of vLLM, SGLang, Ray and the services.

Baked into the image the test daemons import (tests/hosts/testimage/build.py); stdlib
only, run by the image's own Python. See tests/hosts/README.md for the knobs.
"""
