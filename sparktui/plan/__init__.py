"""Launch plans: pure functions from recipe + cluster to what serve will run."""

from sparktui.plan.build import build_plan
from sparktui.plan.model import HfRef, HookStep, LaunchPlan, MountPlan, NodePlan

__all__ = ["HfRef", "HookStep", "LaunchPlan", "MountPlan", "NodePlan", "build_plan"]
