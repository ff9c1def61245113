"""mteval.pipeline"""
