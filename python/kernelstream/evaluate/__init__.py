"""Progressive (prequential) evaluation: predict, then learn, one round at a time,
with loss, time, representation size and memory recorded at checkpoints."""

from .forecasting import ForecastEvaluation, forecast
from .losses import error_rate, running_average, squared_loss
from .plots import plot_results
from .progressive import ProgressiveResult, default_checkpoints, progressive
from .scaled import OnlineScaled
from .weights import plot_weights

__all__ = [
    "forecast",
    "ForecastEvaluation",
    "progressive",
    "ProgressiveResult",
    "OnlineScaled",
    "default_checkpoints",
    "squared_loss",
    "error_rate",
    "running_average",
    "plot_results",
    "plot_weights",
]
