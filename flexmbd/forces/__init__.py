"""Force elements: gravity, point loads and torques, spring-damper-actuators."""
from ..groups import ForceGroup
from .loads import GravityGroup, PointForceGroup, TorqueGroup
from .spring_damper import SpringDamperGroup

__all__ = ["ForceGroup", "GravityGroup", "PointForceGroup", "TorqueGroup", "SpringDamperGroup"]
