"""The person's side: the /memory pages and Settings → Memory, server-rendered with Django templates and
htmx partials. Every view requires a login and reads only the logged-in person's memory (another
owner's id in a URL is a 404). Pages and their htmx partials share templates: a partial is the page's
inner template, rendered alone when the request comes from htmx, so every page also works without
JavaScript."""
