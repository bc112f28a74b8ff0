"""Causal discovery, private and not (thesis ch. 4): PC, PrivPC, PrivPCStar, LapMechPC; CausalGraph results;
benchmark networks and random-DAG generators."""

from .graph import CausalGraph, SkeletonScores, orient_cpdag, skeleton_scores
from .lapmech import LapMechPC
from .networks import BayesianNetwork, load_network
from .pc import PC
from .privpc import PrivPC
from .privpc_star import PrivPCStar
from .random_dag import random_categorical_network, random_dag, random_gaussian_network

__all__ = [
    "CausalGraph",
    "SkeletonScores",
    "skeleton_scores",
    "orient_cpdag",
    "BayesianNetwork",
    "load_network",
    "PC",
    "PrivPC",
    "PrivPCStar",
    "LapMechPC",
    "random_dag",
    "random_categorical_network",
    "random_gaussian_network",
]
