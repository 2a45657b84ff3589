"""Forecasting: online multi-horizon forecasts with intervals (``docs/forecasting.md``)."""

from .forecaster import Forecaster
from .panel import forecast_panel

__all__ = ["Forecaster", "forecast_panel"]
