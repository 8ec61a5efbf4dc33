"""Services and pools: kinds registry, implied services, carving, instances' argv.

Nothing is imported here on purpose: ``plan/cluster.py`` needs only ``placement``,
and a recipe without services never loads the kinds (``build_plan`` imports
``assemble`` only when there is something to assemble).
"""
