# The schema registry the local stack runs: ioscale's Confluent-compatible server (ioscale.services.registry).
FROM local/ioscale-tools:1
EXPOSE 8081
ENTRYPOINT ["python", "-m", "ioscale.services.registry"]
CMD ["--host", "0.0.0.0", "--port", "8081", "--bootstrap", "kafka:29092", "--topic", "_schemas"]
