# Relaybox: build the shaded jar with Maven, run it on a JRE as a non-root user.
#   docker build -t relaybox .        (docker-compose.yml builds it as the `relaybox` service)

FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /build
# Poms first: while they are unchanged, the dependency download below stays a cached layer.
COPY pom.xml ./
COPY producer/pom.xml producer/
COPY workflows/pom.xml workflows/
COPY store/pom.xml store/
COPY activities/pom.xml activities/
# The typed client is generated from this document; the service's tests use it.
COPY client/pom.xml client/openapi.json client/
COPY service/pom.xml service/
COPY bench/pom.xml bench/
RUN mvn -B -q -DskipTests -pl service -am package
COPY producer/src producer/src
COPY workflows/src workflows/src
COPY store/src store/src
COPY activities/src activities/src
COPY service/src service/src
RUN mvn -B -q -DskipTests -pl service -am package

FROM eclipse-temurin:17-jre
RUN groupadd --system relaybox \
 && useradd --system --gid relaybox --home-dir /app --no-create-home --shell /usr/sbin/nologin relaybox \
 && mkdir -p /app/data \
 && chown relaybox:relaybox /app/data
WORKDIR /app
COPY --from=build /build/service/target/relaybox.jar /app/relaybox.jar
COPY config.yml /app/config.yml
USER relaybox
# 8080: API, 8081: admin (health checks, metrics).
EXPOSE 8080 8081
CMD ["java","-jar","/app/relaybox.jar","server","/app/config.yml"]
