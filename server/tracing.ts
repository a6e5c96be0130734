import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { type NextFunction, type Request, type RequestHandler, type Response } from 'express';

/**
 * A server span for each request a front end handles (a Slack event, a GitHub webhook, an API or
 * MCP call, a session page), made active while it is handled: the Temporal client's interceptor
 * then carries it into the workflow it signals, so one trace runs from the request through the
 * thread, the run, its model turns and tool calls. A caller's own `traceparent` is continued.
 * With tracing off the API is a no-op and this costs a function call. Never the body, the query or
 * a header: the span is named by the method and the route with ids folded (`/api/v1/jobs/{id}`).
 */
export function tracingMiddleware(frontEnd: string): RequestHandler {
  const tracer = trace.getTracer('switchboard');
  return (req: Request, res: Response, next: NextFunction) => {
    const parent = propagation.extract(context.active(), req.headers);
    const route = routeOf(req.originalUrl.split('?')[0] ?? '/');
    const span = tracer.startSpan(
      `${req.method} ${route}`,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method, 'http.route': route, 'switchboard.front_end': frontEnd } },
      parent,
    );
    res.once('finish', () => {
      span.setAttribute('http.response.status_code', res.statusCode);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    });
    res.once('close', () => span.end());
    context.with(trace.setSpan(parent, span), () => next());
  };
}

/** A path with its id-like segments folded, so spans of one route share a name. */
export function routeOf(path: string): string {
  return (
    path
      .split('/')
      .map((segment) => (segment === '' || /^[a-z][a-z0-9_.-]{0,30}$/.test(segment) ? segment : '{id}'))
      .join('/') || '/'
  );
}
