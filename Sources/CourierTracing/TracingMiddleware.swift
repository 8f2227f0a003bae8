import Courier
