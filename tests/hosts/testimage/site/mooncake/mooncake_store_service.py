"""``python3 -m mooncake.mooncake_store_service``: the test image's Mooncake store."""
from sparktest.programs import main

if __name__ == "__main__":
    main("mooncake.mooncake_store_service")
